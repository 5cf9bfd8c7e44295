"""An appeal (申诉, rules.md §7): lodged by a side within the window, with its fee; the fee is paid at the desk;
the arbitration decides it, and the fee is refunded (upheld, when the event says so) or kept.

    status      lodged → decided
    fee_status  none                       (the event asks no fee)
                due → paid → refunded | kept

Stored as before: `to_item()` dumps the fields the stored appeal has, statuses as their strings."""
from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from .. import errors
from . import events as ev
from .actor import Actor
from .table import Record


class AppealStatus(StrEnum):
    LODGED = "lodged"
    DECIDED = "decided"


class FeeStatus(StrEnum):
    NONE = "none"
    DUE = "due"
    PAID = "paid"
    REFUNDED = "refunded"
    KEPT = "kept"


class Appeal(Record):
    id: str
    event_id: str
    round: int
    table: int
    entry_id: str
    text: str = ""
    status: AppealStatus = AppealStatus.LODGED
    lodged_at: str
    deadline: str
    fee: dict
    fee_status: FeeStatus
    lodged_by: str = ""
    version: int = 1
    captain_consent: bool | None = None
    players_agreed: list[dict] | None = None
    consent_recorded_by: str | None = None
    fee_method: str | None = None
    outcome: str | None = None
    ruling: str | None = None
    decided_at: str | None = None
    decided_by: str | None = None

    @classmethod
    def load(cls, item: dict) -> Appeal:
        return cls.model_validate(item)

    def to_item(self) -> dict:
        return self.model_dump(exclude_unset=True)

    def _event(self, cls: type, tournament_id: str, **fields: Any):
        return cls(tournament_id, self.event_id, self.id, self.round, self.table, self.version, **fields)

    @staticmethod
    def check_appellant(actor: Actor, entry_id: str, table_ids: list[str]) -> None:
        if entry_id not in table_ids:
            raise errors.InvalidRequest("该参赛单位不在这一桌 · This entry is not at this table.")
        if actor.is_side and table_ids[actor.side] != entry_id:
            raise errors.Forbidden("只能以本方名义申诉 · A side appeals in its own name.")

    @classmethod
    def lodge(cls, appeal_id: str, event_id: str, round_no: int, table_no: int, entry_id: str, text: str, *,
              actor: Actor, table_ids: list[str], now: datetime, deadline: datetime, window_minutes: int,
              fee: int, currency: str, tournament_id: str, captain_consent: bool = False,
              players_agreed: list[dict] | None = None) -> tuple[Appeal, list[ev.Event]]:
        """A side appeals in its own name (the director for anyone at the table), before the window closes."""
        cls.check_appellant(actor, entry_id, table_ids)
        if now > deadline:
            raise errors.AppealWindowClosed(f"申诉时限已过（{window_minutes} 分钟）· The appeal window "
                                            f"({window_minutes} minutes) closed at {deadline.isoformat()}.")
        item: dict[str, Any] = {
            "id": appeal_id, "event_id": event_id, "round": round_no, "table": table_no, "entry_id": entry_id,
            "text": text, "status": AppealStatus.LODGED, "lodged_at": now.isoformat(), "deadline": deadline.isoformat(),
            "fee": {"amount": fee, "currency": currency}, "fee_status": FeeStatus.DUE if fee else FeeStatus.NONE,
            "lodged_by": actor.ident, "version": 1}
        if captain_consent:
            item["captain_consent"] = True
        if players_agreed:
            item["players_agreed"] = players_agreed
        if players_agreed or captain_consent:
            item["consent_recorded_by"] = "phone" if actor.is_side else "director"
        appeal = cls.model_validate(item)
        return appeal, [appeal._event(ev.AppealLodged, tournament_id)]

    def _next(self, **changes: Any) -> Appeal:
        return Appeal.model_validate({**self.to_item(), **changes, "version": self.version + 1})

    def pay_fee(self, method: str, *, tournament_id: str) -> tuple[Appeal, list[ev.Event]]:
        if self.fee_status != FeeStatus.DUE:
            raise errors.Conflict(f"申诉费状态为 {self.fee_status} · The fee is {self.fee_status}, not due.")
        after = self._next(fee_status=FeeStatus.PAID, fee_method=method)
        return after, [after._event(ev.AppealFeePaid, tournament_id)]

    def decide(self, actor: Actor, outcome: str, ruling: str, *, refund_if_upheld: bool, now: datetime,
               tournament_id: str) -> tuple[Appeal, list[ev.Event]]:
        """The arbitration's decision, once the fee is paid (seed 001: an appeal is lodged with its fee)."""
        if self.status == AppealStatus.DECIDED:
            raise errors.Conflict("这项申诉已裁决 · This appeal is decided already.")
        if self.fee_status == FeeStatus.DUE:
            raise errors.Conflict("申诉费尚未缴纳，请先在报到台登记 · The appeal fee is not paid yet: record it at the desk first.")
        fee_status = FeeStatus(self.fee_status)
        if fee_status == FeeStatus.PAID:
            fee_status = FeeStatus.REFUNDED if outcome == "upheld" and refund_if_upheld else FeeStatus.KEPT
        after = self._next(status=AppealStatus.DECIDED, outcome=outcome, ruling=ruling, fee_status=fee_status,
                           decided_at=now.isoformat(), decided_by=actor.ident)
        return after, [after._event(ev.AppealDecided, tournament_id, outcome=outcome, fee_status=str(after.fee_status),
                                    entry_id=self.entry_id, ruling=ruling)]
