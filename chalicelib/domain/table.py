"""A round's table: its sides, its result and the rooms of a team match, with every transition of its life
(enter → confirm | dispute → settle → correct; forfeit; a team match's lineups and rooms).

The stored JSON does not change: a `Table` is read from the round pack's item (`Table.load`) and written back
with `to_item()`, which dumps only the fields the item has (`exclude_unset`) in the order a drawn table always
had them. Statuses are str-valued enums kept as their strings, so the item holds "confirmed", as before.

Each transition checks who may do it, moves the version by one and returns (the new table, [events]); the
first event's `action` is the audit log's word for the change."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, PrivateAttr

from .. import errors
from ..engine.games.guandan_team import ROOM_SEATS, ROOMS, lineup_deadline
from ..engine.types import MatchScore
from . import events as ev
from .actor import Actor, director_only

TIE_BREAK = "tie_break"   # the extra deal of a tied knockout team match, entered and confirmed as a room is
RESERVED = ("version", "reason", "override", "start_levels", "late")   # never taken from the client's result


class TableStatus(StrEnum):
    PENDING = "pending"       # drawn; no result yet (a team match's rooms fill in while it stays pending)
    ENTERED = "entered"       # a result waits for the other side's confirmation
    DISPUTED = "disputed"     # the other side does not agree: the referee settles it
    CONFIRMED = "confirmed"
    FORFEIT = "forfeit"

    @property
    def settled(self) -> bool:
        return self in (TableStatus.CONFIRMED, TableStatus.FORFEIT)


SETTLED = (TableStatus.CONFIRMED, TableStatus.FORFEIT)


class RoomStatus(StrEnum):
    ENTERED = "entered"
    CONFIRMED = "confirmed"
    DISPUTED = "disputed"


class Record(BaseModel):
    """Frozen; statuses kept as their strings; fields the stored item has that this code does not name are kept.
    Validators are built on first use (defer_build), not at import: most requests never load a table."""
    model_config = ConfigDict(frozen=True, extra="allow", use_enum_values=True, defer_build=True)


class Side(Record):
    entry_id: str
    seats: list


class Dispute(Record):
    reason: str = ""
    by: str = ""
    side: int | None = None
    at: str = ""


class Forfeit(Record):
    entry_id: str | None = None
    excused: bool = False
    force_majeure: bool = False
    reason: str = ""


class Room(Record):
    room: str
    seats: dict[str, list]


class RoomState(Record):
    status: RoomStatus
    entered_by: str | None = None
    entered_side: int | None = None
    at: str | None = None
    players: dict | None = None
    reason: str | None = None
    dispute: Dispute | None = None
    confirmed_by: str | None = None

    def but(self, **changes: Any) -> RoomState:
        return RoomState.model_validate({**self.model_dump(exclude_unset=True), **changes})


@dataclass(frozen=True)
class Place:
    """Where a table is, for the events it raises."""
    tournament_id: str
    event_id: str
    stage: int
    round_no: int


@dataclass(frozen=True)
class Entering:
    """What an entry on this table is, decided before the engine scores it (so its errors keep their order)."""
    correcting: bool     # a confirmed or forfeited result is changed
    overridden: bool     # … past the correction window, by the director's override
    settling: bool       # the director's entry settles a dispute


def table_rooms(home: str, away: str) -> list[dict]:
    """The home team N–S in the open room and E–W in the closed room (rules.md §8 default)."""
    return [{"room": room, "seats": {home: list(ROOM_SEATS[room][0]), away: list(ROOM_SEATS[room][1])}} for room in ROOMS]


def lineup_deadlines(starts_at: datetime | None, ids: list[str], seat_choice: str | None) -> dict[str, str] | None:
    """Each team's deadline: 15 minutes before the start without seat choice, 5 with it (seed 000)."""
    if starts_at is None:
        return None
    return {e: lineup_deadline(starts_at, seat_choice == e).isoformat() for e in ids}


class Table(Record):
    # the order a drawn (or edited) table's item has always had its fields
    number: int
    home: str | None = None
    reason: str = ""
    why: Any = None
    status: TableStatus = TableStatus.PENDING
    version: int = 0
    edited: dict | None = None
    sides: list[Side] = []
    code_hashes: list[str] = []
    points: dict = {}
    details: dict = {}
    rooms: list[Room] | None = None
    seat_choice: str | None = None
    lineups: dict | None = None
    fixed: list[str] | None = None
    lineup_deadlines: dict | None = None
    # the result
    result: dict | None = None
    outcome: dict | None = None
    winner: str | None = None
    entered_by: str | None = None
    entered_side: int | None = None
    confirmed_sides: list[int] | None = None
    dispute: Dispute | None = None
    forfeit: Forfeit | None = None
    confirmed_by: str | None = None
    overridden: bool | None = None
    played: dict | None = None
    settled_dispute: Dispute | None = None
    # a team match's rooms, before the match is scored
    room_results: dict | None = None
    room_status: dict[str, RoomState] | None = None
    tie_break_needed: bool | None = None
    # the referee's records
    arrivals: dict | None = None
    start_levels: dict | None = None

    # the order of the stored item's keys (a new key goes last), so a saved table's JSON is the bytes the
    # hand-written `{**table, …}` rebuilds wrote; empty for a new table: the declared order above
    _keys: tuple[str, ...] = PrivateAttr(default=())

    # ------------------------------------------------------------------ the stored item

    @classmethod
    def load(cls, item: dict) -> Table:
        table = cls.model_validate(item)
        table._keys = tuple(item)
        return table

    def to_item(self) -> dict:
        """The round pack's JSON for this table: the fields it has, in the order they were stored."""
        dump = self.model_dump(exclude_unset=True)
        if not self._keys:
            return dump
        return {**{k: dump[k] for k in self._keys if k in dump}, **dump}

    @classmethod
    def new(cls, number: int, sides: list[tuple[str, list]], code_hashes: list[str], reason: str, why: Any, *,
            version: int = 0, edited: dict | None = None, team_match: bool = False, fixed: list[str] | None = None,
            starts_at: datetime | None = None) -> Table:
        """A drawn (or re-made by a pairing edit) table: pending, the home side first. A team match gets its two
        rooms, the home team's seat choice and the lineups' deadlines."""
        return cls.model_validate(cls.new_item(number, sides, code_hashes, reason, why, version=version, edited=edited,
                                               team_match=team_match, fixed=fixed, starts_at=starts_at))

    @staticmethod
    def new_item(number: int, sides: list[tuple[str, list]], code_hashes: list[str], reason: str, why: Any, *,
                 version: int = 0, edited: dict | None = None, team_match: bool = False, fixed: list[str] | None = None,
                 starts_at: datetime | None = None) -> dict:
        """`Table.new(…).to_item()` without the model between (a 100,000-entry draw makes 50,000 of them: the
        round trip through pydantic was a second of its CPU); tests/unit/domain/test_table_new_item.py holds the two equal."""
        ids = [e for e, _ in sides]
        item: dict[str, Any] = {"number": number, "home": ids[0], "reason": reason, "why": why,
                                "status": TableStatus.PENDING.value, "version": version}
        if edited is not None:
            item["edited"] = edited
        item.update(sides=[{"entry_id": e, "seats": list(s)} for e, s in sides], code_hashes=list(code_hashes),
                    points={}, details={})
        if team_match:   # 集体赛: the home team has seat choice unless the referee gives it away
            item.update(rooms=table_rooms(ids[0], ids[1]), seat_choice=ids[0], lineups={})
        item["fixed"] = fixed
        if team_match:
            item["lineup_deadlines"] = lineup_deadlines(starts_at, ids, ids[0])
        return item

    # ------------------------------------------------------------------ reading

    @property
    def ids(self) -> list[str]:
        return [s.entry_id for s in self.sides]

    @property
    def is_settled(self) -> bool:
        return self.status in SETTLED

    def snapshot(self) -> dict:
        """What the audit record keeps of the table before and after a change."""
        return {"status": self.status, "version": self.version, "points": self.points, "result": self.result}

    def scored_result(self, body: dict) -> dict:
        """The result as the engine scores it: the client's, with the table's start levels (lateness) added."""
        result = {k: v for k, v in body.items() if k not in RESERVED}
        if self.start_levels:
            result["start_levels"] = dict(self.start_levels)
        return result

    def may_enter(self, result_entry: str, side: int | None) -> bool:
        """rules.md §8 (seed 000): by default the side sitting N–S enters each deal and E–W confirms. Tables
        without compass seats (Dou Dizhu's three, Gouji's six) and events set to 'either' let any side enter."""
        if result_entry != "north_south" or side is None:
            return True
        if self.rooms:
            return True   # a team match: each team sits N–S in one room and E–W in the other (issue 26's rooms)
        seats = [set(map(str, s.seats)) for s in self.sides]
        if not any("N" in s for s in seats):
            return True
        return bool(seats[side] & {"N", "S"})

    def confirmers_needed(self) -> set[int]:
        """Every side other than the one that entered: at a three-seat Dou Dizhu table both other players
        confirm (rules.md §8); at a two-sided table, the other side."""
        return set(range(len(self.sides))) - {self.entered_side}

    def _next(self, **changes: Any) -> Table:
        """This table with `changes`, one version on."""
        return self._with(**changes, version=self.version + 1)

    def _with(self, **changes: Any) -> Table:
        return Table.load({**self.to_item(), **changes})

    def _event(self, cls: type, place: Place, after: Table, **fields: Any):
        return cls(place.tournament_id, place.event_id, place.stage, place.round_no, self.number, after.version,
                   **fields)

    # ------------------------------------------------------------------ a result

    def entering(self, actor: Actor, *, round_closed: bool, sent_version: Any, result_entry: str,
                 window_open: bool, override: bool, reason: str, deadline: datetime | None) -> Entering:
        """Whether `actor` may enter a result now, and what kind of entry it is. Raises in the order the API
        has always answered: a side at a settled table, a stale version, E–W entering, the closed window."""
        if actor.is_side:
            if round_closed:
                raise errors.AlreadyConfirmed("This round is closed: ask the organiser for a correction.")
            if self.is_settled:
                raise errors.AlreadyConfirmed("已确认的成绩只能由裁判修改 · A confirmed result can only be corrected by the organiser.")
            if self.status == TableStatus.DISPUTED:
                raise errors.Disputed("成绩有异议，由裁判处理 · This result is disputed: the referee settles it.")
        if sent_version != self.version:
            raise errors.VersionConflict(f"The result is at version {self.version}, not {sent_version}: reload and try again.")
        if actor.is_side and not self.may_enter(result_entry, actor.side):
            raise errors.NorthSouthEnters("由南北方录入、东西方核对 · N–S enter the result and E–W confirm it (rules.md §8).")
        correcting = self.is_settled
        overridden = False
        if correcting and not window_open:
            if not (override and reason):
                at = deadline.isoformat() if deadline else ""
                raise errors.CorrectionWindowClosed(
                    f"更正时限已过（{at}）：需裁判长以 override 并说明理由 · The correction window closed at "
                    f"{at}: send \"override\": true with a \"reason\".")
            overridden = True
        return Entering(correcting, overridden, self.status == TableStatus.DISPUTED)

    def enter(self, actor: Actor, how: Entering, result: dict, score: MatchScore, *, place: Place, reason: str = "",
              played: dict | None = None) -> tuple[Table, list[ev.Event]]:
        """A scored result. A side's entry waits for the other side; the director's correction, or the settling
        of a dispute, is confirmed at once (the organiser's word stands)."""
        if how.settling:
            director_only(actor, ("裁定异议", "settle a dispute"))
        if how.overridden:
            director_only(actor, ("超时更正成绩", "override the correction window"))
        if how.correcting and not reason:
            raise errors.InvalidRequest("A correction of a confirmed result needs a 'reason'.")
        if how.settling and not reason.strip():   # published on the corrections page (issue 24)
            raise errors.InvalidRequest("裁定异议需要说明理由 · Settling a dispute needs a 'reason' (it is published).",
                                        [{"field": "reason", "type": "missing", "message": "required"}])
        organiser_word = not actor.is_side and (how.correcting or how.settling)
        changes: dict[str, Any] = {
            "result": result, "points": score.points, "outcome": score.outcome, "winner": score.winner,
            "details": score.details, "entered_by": actor.ident, "entered_side": actor.side, "confirmed_sides": [],
            "dispute": None, "forfeit": None if how.correcting else self.forfeit,
            "status": TableStatus.CONFIRMED if organiser_word else TableStatus.ENTERED,
            "confirmed_by": (self.confirmed_by if how.correcting else actor.ident if how.settling else None)}
        if how.overridden:
            changes["overridden"] = True
        if played is not None:
            changes["played"] = played
        if how.settling:
            changes["settled_dispute"] = self.dispute
        after = self._next(**changes)
        if how.overridden:
            event = self._event(ev.ResultCorrected, place, after, action="result_overridden", overridden=True)
        elif how.correcting:
            event = self._event(ev.ResultCorrected, place, after)
        elif how.settling:
            event = self._event(ev.DisputeSettled, place, after)
        else:
            event = self._event(ev.ResultEntered, place, after,
                                action="result_changed" if self.status == TableStatus.ENTERED else "result_entered")
        return after, [event]

    def confirm(self, actor: Actor, *, place: Place) -> tuple[Table, list[ev.Event]]:
        """The other side agrees (or the director confirms for everyone); at a three-seat table the result
        stands once every side but the entering one has confirmed."""
        if self.is_settled:
            raise errors.AlreadyConfirmed()
        if self.status == TableStatus.DISPUTED:
            raise errors.Disputed("成绩有异议，不能确认，由裁判处理 · This result is disputed and cannot be confirmed: "
                                  "the referee settles it.")
        if self.status != TableStatus.ENTERED:
            raise errors.Conflict("No result has been entered for this table yet.")
        if actor.is_side and actor.side == self.entered_side:
            raise errors.Forbidden("由对方确认 · The other side confirms the result it did not enter.")
        done = set(self.confirmed_sides or [])
        if actor.is_side:
            if actor.side in done:
                raise errors.Conflict("本方已确认，等待其他牌手确认 · This side has confirmed already: waiting for the others.")
            done.add(actor.side)
        complete = not actor.is_side or done >= self.confirmers_needed()
        after = self._next(status=TableStatus.CONFIRMED if complete else TableStatus.ENTERED,
                           confirmed_sides=sorted(done), confirmed_by=actor.ident if complete else None)
        return after, [self._event(ev.ResultConfirmed if complete else ev.SideConfirmed, place, after)]

    def raise_dispute(self, actor: Actor, reason: str, *, now: datetime, place: Place) -> tuple[Table, list[ev.Event]]:
        """The other side does not agree: the table is held with the reason for the referee; nobody can confirm
        it; the director settles it by entering the result."""
        if self.status == TableStatus.DISPUTED:
            raise errors.Disputed("已提出异议，等待裁判处理 · Already disputed: waiting for the referee.")
        if self.status != TableStatus.ENTERED:
            raise errors.Conflict("Only an entered, unconfirmed result can be disputed.")
        if actor.is_side and actor.side == self.entered_side:
            raise errors.Forbidden("The side that entered the result cannot dispute it.")
        after = self._next(status=TableStatus.DISPUTED,
                           dispute=Dispute(reason=reason or "", by=actor.ident, side=actor.side, at=now.isoformat()))
        return after, [self._event(ev.DisputeRaised, place, after)]

    def record_forfeit(self, actor: Actor, *, points: dict, outcome: dict, winner: str | None, forfeit: Forfeit,
                       result: dict, force_majeure: bool, place: Place) -> tuple[Table, list[ev.Event]]:
        """A forfeit (or a force-majeure draw) settles the table without play, whatever it held."""
        after = self._next(status=TableStatus.FORFEIT, points=points, outcome=outcome, winner=winner, result=result,
                           entered_by=actor.ident, confirmed_by=actor.ident, dispute=None, forfeit=forfeit)
        return after, [self._event(ev.ForfeitRecorded, place, after,
                                   action="force_majeure" if force_majeure else "forfeit_recorded")]

    def record_arrival(self, entry_id: str, at: datetime, late_minutes: int, start_levels: dict, *,
                       place: Place) -> tuple[Table, list[ev.Event]]:
        """An arrival; one that changes the scoring (start levels) moves the version (phones reload), one that
        does not, does not."""
        if entry_id not in self.ids:
            raise errors.InvalidRequest("该参赛单位不在这一桌 · This entry is not at this table.")
        if self.is_settled:
            raise errors.AlreadyConfirmed("本桌成绩已确认，不能再登记迟到 · This table's result is settled.")
        arrivals = {**(self.arrivals or {}), entry_id: {"at": at.isoformat(), "late_minutes": late_minutes}}
        changes: dict[str, Any] = {"arrivals": arrivals}
        if start_levels:
            changes["start_levels"] = {**(self.start_levels or {}), **start_levels}
            after = self._next(**changes)
        else:
            after = self._with(**changes)
        return after, [self._event(ev.ArrivalRecorded, place, after, entry_id=entry_id)]

    # ------------------------------------------------------------------ a team match: lineups and rooms

    def check_lineup_open(self) -> None:
        if self.status != TableStatus.PENDING or self.room_results:
            raise errors.Conflict("成绩已开始录入，名单不能再改 · A result is in: the lineup can no longer change.")

    def announce_lineup(self, actor: Actor, entry_id: str, pairs: dict, *, now: datetime,
                        starts_at: datetime | None, place: Place) -> tuple[Table, list[ev.Event], dict]:
        """Seed 000: a team names its lineup once, before its deadline; later, or a change, is the director's —
        and then the other team has seat choice ("此时对方具有座位选择权"). Returns also {late, deadline}."""
        self.check_lineup_open()
        lineups = dict(self.lineups or {})
        deadline = lineup_deadline(starts_at, self.seat_choice == entry_id) if starts_at else None
        late = deadline is not None and now > deadline
        # "变更": a change of what was announced. The director naming a lineup the team never announced is not one.
        change = entry_id in lineups
        if actor.is_side and (late or change):
            raise errors.LineupClosed(
                ("进场名单已过截止时间" if late else "进场名单已宣布") + "，变更需经裁判长同意 · "
                + (f"The lineup deadline was {deadline.isoformat()}" if late and deadline else "The lineup was announced")
                + ": the chief referee records a change.", {"deadline": deadline.isoformat() if deadline else None})
        changes: dict[str, Any] = {"lineups": {**lineups, entry_id: pairs}}
        if (change or late) and not actor.is_side:
            changes["seat_choice"] = next(e for e in self.ids if e != entry_id)
            changes["lineup_deadlines"] = lineup_deadlines(starts_at, self.ids, changes["seat_choice"])
        after = self._next(**changes)
        event = self._event(ev.LineupAnnounced, place, after, entry_id=entry_id, late=late,
                            action="lineup_changed" if change else "lineup_announced")
        return after, [event], {"late": late, "deadline": deadline}

    def room_entry_is_a_correction(self, actor: Actor) -> bool:
        """A room's result once the table holds a whole result: a side may not; the director's is an entry of
        the whole table (a correction, or the settling of a dispute)."""
        if self.status == TableStatus.PENDING:
            return False
        if actor.is_side:
            if self.status == TableStatus.DISPUTED:
                raise errors.Disputed("成绩有异议，由裁判处理 · This result is disputed: the referee settles it.")
            raise errors.AlreadyConfirmed("这一场的成绩已录入 · This table's result is in already.")
        return True

    def check_room_entry(self, actor: Actor, room: str, result_entry: str) -> None:
        """A side may enter a room not yet confirmed nor disputed, and (N–S entering) only where it sits N–S."""
        if not actor.is_side:
            return
        now = self._room(room).status if self._room(room) else None
        if now == RoomStatus.CONFIRMED:
            raise errors.AlreadyConfirmed("这个室的成绩已确认，只有裁判能改 · This room is confirmed: only the referee changes it.")
        if now == RoomStatus.DISPUTED:
            raise errors.Disputed("这个室有异议，由裁判处理 · This room is disputed: the referee enters it.")
        if room in ROOMS and result_entry == "north_south" and "N" not in ROOM_SEATS[room][actor.side]:
            # rules.md §8 (seed 000): N–S enter, E–W confirm — in a team match each team sits N–S in one room
            raise errors.NorthSouthEnters("本室由南北方录入、东西方核对 · In this room N–S enter the result and E–W "
                                          "confirm it (rules.md §8).")

    def tie_break_result(self, room_result: dict) -> dict:
        """The extra deal's result: only when the match needs one, naming a team at this table."""
        if not self.tie_break_needed:
            raise errors.Conflict("这一场不需要加赛 · This team match needs no extra deal.")
        if room_result.get("winner") not in self.ids:
            raise errors.InvalidResult("tie_break.winner: the team that won the extra deal", {"got": room_result.get("winner")})
        return {"winner": room_result["winner"]}

    def _room(self, room: str) -> RoomState | None:
        return (self.room_status or {}).get(room)

    def room_enter(self, actor: Actor, room: str, room_result: dict, *, now: datetime, players: dict | None = None,
                   reason: str = "", place: Place) -> tuple[Table, list[ev.Event]]:
        """One room's result (checked by the caller: `check_room_entry`, the engine, the lineups), waiting for
        the other team's confirmation."""
        state: dict[str, Any] = {"status": RoomStatus.ENTERED, "entered_by": actor.ident, "entered_side": actor.side,
                                 "at": now.isoformat()}
        if players is not None:
            state["players"] = players
        if reason:
            state["reason"] = reason
        after = self._next(room_results={**(self.room_results or {}), room: room_result},
                           room_status={**(self.room_status or {}), room: RoomState.model_validate(state)})
        return after, [self._event(ev.RoomResultEntered, place, after, room=room)]

    def room_confirm(self, actor: Actor, room: str, *, place: Place,
                     scorer: Callable[[dict], MatchScore]) -> tuple[Table, list[ev.Event]]:
        """The other team (or the director) confirms one room. With every room confirmed `scorer` (the engine)
        scores the match and the table is confirmed; a knockout match tied on levels first asks for its extra
        deal (`tie_break_needed`)."""
        if self.is_settled:
            raise errors.AlreadyConfirmed()
        mine = self._room(room)
        if self.status != TableStatus.PENDING or mine is None:
            raise errors.Conflict("这个室还没有成绩 · This room has no result to confirm yet.")
        if mine.status == RoomStatus.CONFIRMED:
            raise errors.AlreadyConfirmed("这个室已确认 · This room is confirmed already.")
        if mine.status == RoomStatus.DISPUTED and actor.is_side:
            raise errors.Disputed("这个室有异议，由裁判处理 · This room is disputed: the referee enters it.")
        if actor.is_side and actor.side == mine.entered_side:
            raise errors.Forbidden("由对方确认 · The other team confirms the room it did not enter.")
        status = {**(self.room_status or {}), room: mine.but(status=RoomStatus.CONFIRMED, confirmed_by=actor.ident)}
        changes: dict[str, Any] = {"room_status": status}
        rooms = self.room_results or {}
        score = None
        if all(status.get(r) is not None and status[r].status == RoomStatus.CONFIRMED for r in ROOMS):
            result = self.scored_result({"rooms": {r: rooms[r] for r in ROOMS}})
            if status.get(TIE_BREAK) is not None and status[TIE_BREAK].status == RoomStatus.CONFIRMED:
                result["tie_break"] = rooms[TIE_BREAK]
            try:
                score = scorer(result)
            except errors.TieBreakRequired:
                changes["tie_break_needed"] = True   # both phones now show the extra deal
            else:
                changes.update(result=result, points=score.points, outcome=score.outcome, winner=score.winner,
                               details=score.details, status=TableStatus.CONFIRMED, entered_by=mine.entered_by,
                               confirmed_by=actor.ident, tie_break_needed=False,
                               played={r: status[r].players or {} for r in ROOMS})
        after = self._next(**changes)
        if score is not None:
            return after, [self._event(ev.TeamMatchConfirmed, place, after)]
        return after, [self._event(ev.RoomResultConfirmed, place, after, room=room)]

    def room_dispute(self, actor: Actor, room: str, reason: str, *, now: datetime,
                     place: Place) -> tuple[Table, list[ev.Event]]:
        """The confirming team does not agree with a room: held as disputed for the referee, who enters it again."""
        mine = self._room(room)
        if self.status != TableStatus.PENDING or mine is None or mine.status == RoomStatus.CONFIRMED:
            raise errors.Conflict("只能对已录入、未确认的室提出异议 · Only an entered, unconfirmed room can be disputed.")
        if mine.status == RoomStatus.DISPUTED:
            raise errors.Disputed("已提出异议，等待裁判处理 · Already disputed: waiting for the referee.")
        if actor.is_side and actor.side == mine.entered_side:
            raise errors.Forbidden("The team that entered the room cannot dispute it.")
        dispute = Dispute(reason=reason or "", by=actor.ident, side=actor.side, at=now.isoformat())
        status = {**(self.room_status or {}), room: mine.but(status=RoomStatus.DISPUTED, dispute=dispute)}
        after = self._next(room_status=status)
        return after, [self._event(ev.RoomDisputed, place, after, room=room)]
