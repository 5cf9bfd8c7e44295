"""The messages' outbox (chalicelib/messages): one item per message, keyed by its cause and channel, so a cause
retried (a registration sent twice, a handler run again) writes it once; in the sparse OUTBOX index while it is
still to be tried, by when. A worker claims a due message by one conditional write (moving its due time past
a lease), so two workers never send it at once, and a worker that dies mid-send leaves it due again after
the lease."""
from __future__ import annotations

from datetime import datetime

from .. import errors
from ..messages.record import Message
from . import keys
from .dynamo import Op, Table

_ISO = "%Y-%m-%dT%H:%M:%S.%fZ"


def _iso(at: datetime) -> str:
    return at.strftime(_ISO)


class _Taken(errors.DomainError):
    """A claim lost to another worker (internal: never leaves the repository)."""


class MessageRepo:
    def __init__(self, table: Table):
        self.t = table

    def _item(self, m: Message, due: datetime | None) -> dict:
        item = {**keys.message(m.tournament_id, m.key), "kind": "message", "data": m.model_dump_json(),
                "state": m.state, "claim": ""}
        if due is not None:
            item.update(keys.outbox_index(_iso(due), m.tournament_id, m.key))
        return item

    def queue_op(self, m: Message) -> Op:
        """The write of a new message, for a transaction with its cause; fails (DuplicateEntry) when the cause
        already has its message."""
        return Op.put(self._item(m, m.next_at), condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry)

    def queue(self, m: Message) -> bool:
        """Writes it unless its cause already has one: True when written now."""
        try:
            self.t.put(self._item(m, m.next_at), condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry)
            return True
        except errors.DuplicateEntry:
            return False

    def get(self, tid: str | None, cause_key: str) -> Message | None:
        item = self.t.get(keys.message(tid, cause_key))
        return Message.model_validate_json(item["data"]) if item else None

    def due(self, now: datetime, limit: int = 50) -> list[tuple[Message, str]]:
        """Messages due by `now`, oldest first, each with its index position (what a claim must still find)."""
        items = self.t.query(keys.OUTBOX_PARTITION, index="GSI1", upper=_iso(now) + "~", limit=limit)
        return [(Message.model_validate_json(i["data"]), i["GSI1SK"]) for i in items]

    @staticmethod
    def position(m: Message) -> str:
        """Where a message just queued stands in the index (what its first claim must find)."""
        return keys.outbox_index(_iso(m.next_at), m.tournament_id, m.key)["GSI1SK"]

    def claim(self, m: Message, seen: str, worker: str, lease_until: datetime) -> bool:
        """Takes the message for one try (its tries counted): False when another worker took it first."""
        due = keys.outbox_index(_iso(lease_until), m.tournament_id, m.key)
        try:
            self.t.update(keys.message(m.tournament_id, m.key), "SET GSI1SK = :due, claim = :w, #d = :data",
                          names={"#d": "data"}, condition="GSI1SK = :seen",
                          values={":due": due["GSI1SK"], ":w": worker, ":seen": seen, ":data": m.model_dump_json()},
                          on_fail=_Taken)
            return True
        except _Taken:
            return False

    def settle(self, m: Message, worker: str) -> bool:
        """The try's outcome: sent or failed (out of the index), or due again at its back-off. Only by the
        worker that holds the claim (a worker whose lease ran out and was overtaken writes nothing)."""
        item = self._item(m, m.next_at if m.state == "queued" else None)
        item["claim"] = ""
        ops = [Op.put(item, condition="claim = :w", values={":w": worker}, on_fail=_Taken)]
        if m.state == "sent" and m.provider_id:   # its delivery report names it by the provider's id
            ops.append(Op.put({**keys.message_by_provider(m.provider or "", m.provider_id), "kind": "message_ref",
                               "tournament_id": m.tournament_id or "", "key": m.key,
                               "expires_at": int(m.created_at.timestamp()) + 7 * 86_400}))
        try:
            self.t.transact(ops)
            return True
        except _Taken:
            return False

    def by_provider_id(self, provider: str, provider_id: str) -> Message | None:
        ref = self.t.get(keys.message_by_provider(provider, provider_id))
        return self.get(ref["tournament_id"] or None, ref["key"]) if ref else None

    def mark_undelivered(self, m: Message) -> None:
        """The provider took it but the phone never got it (a report of failure): failed, shown in the console."""
        self.t.put(self._item(m.model_copy(update={"state": "failed", "error": "undelivered"}), None),
                   condition="#s = :sent", names={"#s": "state"}, values={":sent": "sent"})

    def mark_delivered(self, m: Message) -> None:
        from ..messages.record import delivered
        self.t.put(self._item(delivered(m), None), condition="#s = :sent", names={"#s": "state"},
                   values={":sent": "sent"})

    def holds_ending(self, after_iso: str, until_iso: str, limit: int = 500) -> list[tuple[str, str]]:
        """(event id, entry id) of the places held (store/entries.py's HOLDS index) whose hold ends after
        `after_iso` and by `until_iso`: those a "10 minutes left" message is for."""
        items = self.t.query(keys.HOLDS_PARTITION, index="GSI1", between=(after_iso + "~", until_iso + "~"),
                             limit=limit)
        return [(i["PK"].split("#", 1)[1], i["SK"].split("#", 1)[1]) for i in items]

    def for_tournament(self, tid: str, limit: int = 1000) -> list[Message]:
        items = self.t.query(keys.messages_partition(tid), keys.MESSAGE_PREFIX, limit=limit)
        return [Message.model_validate_json(i["data"]) for i in items]
