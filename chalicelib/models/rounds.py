"""Rounds, tables, results, the referee's records (arrivals, appeals), prizes and standings."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from .base import Out, Strict


class DrawIn(Strict):
    seed: int | None = Field(default=None, ge=0, le=2 ** 53, description="draw seed; random when left out")
    choices: list[Annotated[list[Annotated[str, Field(min_length=1, max_length=80)]], Field(min_length=2, max_length=2)]] | None = Field(
        default=None, max_length=512,
        description="knockout_draw 'choice' (rules.md §8): [chooser, opponent] in the order the entries chose, best "
                    "placed first; only for the first round of such a knockout")


class EditTable(Strict):
    number: int = Field(ge=1, le=9_999)
    sides: list[Annotated[str, Field(min_length=1, max_length=80)]] = Field(min_length=2, max_length=3)


class FixTable(Strict):
    entry_id: str = Field(min_length=1, max_length=80)
    table: int = Field(ge=1, le=9_999)


class PairingEditIn(Strict):
    """A pairing edit of the open round (api.md v1.2): swaps, tables given whole, entries moved to the bye,
    tables fixed for an entry (固定桌号, kept by later draws). Warnings come from the draw's cost function."""
    swap: list[Annotated[list[Annotated[str, Field(min_length=1, max_length=80)]], Field(min_length=2, max_length=2)]] = Field(
        default_factory=list, max_length=256)
    tables: list[EditTable] = Field(default_factory=list, max_length=256)
    byes: list[Annotated[str, Field(min_length=1, max_length=80)]] = Field(default_factory=list, max_length=64)
    fixed: list[FixTable] = Field(default_factory=list, max_length=64)
    unfix: list[Annotated[str, Field(min_length=1, max_length=80)]] = Field(default_factory=list, max_length=64)
    reason: str = Field(default="", max_length=300)
    dry_run: bool = False


class LineupIn(Strict):
    """A team's lineup (进场名单) for a team match: which members play in the open and the closed room."""
    entry_id: str | None = Field(default=None, max_length=80, description="the director names the team; a table code is its own")
    open: list[int] = Field(min_length=2, max_length=2)
    closed: list[int] = Field(min_length=2, max_length=2)


class TableSide(Out):
    entry_id: str
    seats: list[str]
    name: str = ""


class RoundTable(Out):
    number: int
    home: str
    sides: list[TableSide]
    reason: str = ""
    status: Literal["pending", "entered", "disputed", "confirmed", "forfeit"] = "pending"
    version: int = 0
    points: dict[str, dict[str, float]] = Field(default_factory=dict)
    winner: str | None = None
    result: dict | None = None
    details: dict = Field(default_factory=dict)
    entered_by: str | None = None
    confirmed_by: str | None = None
    entered_side: int | None = Field(default=None, description="the side whose table code entered the result")
    confirmed_sides: list[int] = Field(default_factory=list, description="the sides that have confirmed so far "
                                       "(a three-seat table needs both others)")
    dispute: dict | None = Field(default=None, description="open dispute: reason, by, at")
    start_levels: dict[str, int] | None = Field(default=None, description="Guandan lateness: the level a side starts at")
    arrivals: dict[str, dict] | None = Field(default=None, description="recorded arrival per entry: at, late_minutes")
    forfeit: dict | None = Field(default=None, description="entry, excused, force_majeure, reason")
    codes: list[str] | None = Field(default=None, description="the sides' table codes (organiser only)")
    why: dict | None = Field(default=None, description="the pairing's reason, structured (glossary.py words it)")
    match_name: str | None = Field(default=None, description="knockout: `final` or `third_place` (三四名决赛, glossary "
                                   "knockout_round) where a round holds both; otherwise the round's own round_name")
    rooms: list[dict] | None = Field(default=None, description="Guandan team match (集体赛): the open and closed "
                                     "rooms with each team's seats")
    seat_choice: str | None = Field(default=None, description="team match: the team with seat choice (座位选择权)")
    lineups: dict[str, dict[str, list[int]]] | None = Field(default=None, description="team match: entry → "
                                                            "{open: [member, member], closed: [member, member]}")
    room_results: dict[str, dict] | None = Field(default=None, description="team match: a room's result while the "
                                                 "other room's is still to come")
    room_status: dict[str, dict] | None = Field(default=None, description="team match: each room's (and the extra "
                                                "deal's) state — status entered/confirmed, entered_side, players")
    lineup_deadlines: dict[str, str] | None = Field(default=None, description="team match: entry → by when its "
                                                    "lineup is due (15 / 5 minutes before the start by seat choice)")
    tie_break_needed: bool = Field(default=False, description="team knockout: both rooms confirmed with the same "
                                   "levels gained — the extra deal's winner is to be entered (room tie_break)")
    played: dict[str, dict[str, list[int]]] | None = Field(default=None, description="team match: room → entry → "
                                                           "the two members who played there")
    reason_zh: str = ""
    reason_en: str = ""
    edited: dict | None = Field(default=None, description="pairing edit (编排调整): reason, at, by (issue 24)")
    fixed: list[str] | None = Field(default=None, description="entries whose table number is fixed (固定桌号)")


class RoundOut(Out):
    stage: int
    number: int
    stage_round: int
    seed: int
    status: Literal["open", "closed"]
    format: str
    tables: list[RoundTable]
    byes: list[str]
    bye_reasons: dict[str, str] = Field(default_factory=dict)
    bye_names: dict[str, str] = Field(default_factory=dict)
    bye_reasons_zh: dict[str, str] = Field(default_factory=dict)
    bye_reasons_en: dict[str, str] = Field(default_factory=dict)
    format_zh: str = ""
    format_en: str = ""
    round_name: str | None = Field(default=None, description="a knockout round by its size (glossary knockout_round): "
                                                             "final, semi_final, quarter_final, round_of_16, …")
    round_name_zh: str = ""
    round_name_en: str = ""
    notes: list[str] = Field(default_factory=list)
    drawn_at: datetime | None = None
    starts_at: datetime | None = None
    ends_at: datetime | None = None
    closed_at: datetime | None = None
    disputes: list[int] = Field(default_factory=list, description="tables with an open dispute")
    warnings: list[dict] = Field(default_factory=list, description="pairing edit: rematch, same_club, second_bye, "
                                 "score_gap, seat_balance — from the draw's cost function")
    early_finish: list[dict] = Field(default_factory=list, description="entries certain of a place and no longer "
                                     "drawn: entry_id, name, place, average, from_round, and why (rules.md §9): "
                                     "score (its points then), rounds_left, worst (its total had it lost every "
                                     "remaining match), best_other (the most another could reach), chaser, chaser_name")
    late_entries: list[dict] = Field(default_factory=list, description="entries drawn in from this round "
                                     "(checked in late): entry_id, name, score")
    tables_total: int | None = Field(default=None, description="an answer carrying only some of the round's tables "
                                     "(the draw's: its first 5,000 by number; GET …/rounds/{n}: the page ?from=&limit= "
                                     "asked for): how many the round has; null when every table is answered")


class ResultIn(Out):
    """A table's result: `version` (0 for the first entry) and deals/games or a final summary, in the game's
    own terms (see api.md). Validated by the scoring engine, which names what is wrong."""
    model_config = ConfigDict(extra="allow", defer_build=True)
    version: int = Field(ge=0, le=1_000_000)
    reason: str = Field(default="", max_length=300, description="why a confirmed result is corrected")


class ResultOut(Out):
    table: RoundTable
    status: str
    version: int
    points: dict[str, dict[str, float]]
    redraw_offered: bool = False


class ForfeitIn(Strict):
    entry_id: str | None = Field(default=None, max_length=64, description="the entry that forfeits; none: both absent")
    reason: str = Field(default="", max_length=300)
    excused: bool = Field(default=False, description="approved by the chief referee; unexcused ranks last of the stage")
    force_majeure: bool = Field(default=False, description="with the organiser's consent: counted as a draw unless replayed")


class ArrivalIn(Strict):
    entry_id: str = Field(min_length=1, max_length=64)
    arrived_at: datetime | None = Field(default=None, description="default: now; without offset: the tournament's time zone")


class ArrivalOut(Out):
    late_minutes: int
    effect: Literal["none", "start_level", "forfeit"]
    start_levels: dict[str, int] = Field(default_factory=dict)
    table: RoundTable


class AppealIn(Strict):
    entry_id: str = Field(min_length=1, max_length=64)
    text: str = Field(min_length=1, max_length=2000)
    captain_consent: bool = Field(default=False, description="Guandan team event: the captain agrees (seed 000 "
                                  "\"集体赛必须经领队同意\", rules.md §8)")
    players_agreed: list[int] = Field(default_factory=list, max_length=2, description="a pairs event: the members "
                                      "(0, 1) who agree to the appeal — both are needed (seed 000 \"双人赛必须两名运动员"
                                      "均同意\", rules.md §9); on a phone the partner confirms, or the director records it")


class AppealFeeIn(Strict):
    method: Literal["cash", "transfer"]


class AppealDecisionIn(Strict):
    outcome: Literal["upheld", "rejected"]
    ruling: str = Field(min_length=1, max_length=2000)
    result: dict | None = Field(default=None, description="upheld: the table's result to apply as a correction")


class Money(Out):
    amount: int
    currency: str


class Appeal(Out):
    id: str
    event_id: str
    round: int
    table: int
    entry_id: str
    name: str = ""
    text: str
    status: Literal["lodged", "decided"]
    outcome: Literal["upheld", "rejected"] | None = None
    ruling: str = ""
    lodged_at: datetime
    decided_at: datetime | None = None
    deadline: datetime
    fee: Money
    fee_status: Literal["none", "due", "paid", "refunded", "kept"]
    fee_method: str | None = None
    lodged_by: str = ""
    decided_by: str = ""
    version: int = 1
    captain_consent: bool = Field(default=False, description="a team event: the captain agreed (seed 000)")
    players_agreed: list[dict] = Field(default_factory=list, description="a pairs event: both players' agreement, "
                                       "[{member, name}] (seed 000 \"双人赛必须两名运动员均同意\")")
    consent_recorded_by: Literal["phone", "director"] | None = Field(
        default=None, description="who recorded the players' or captain's agreement: the table's phone (the partner "
                                  "confirmed on it) or the director")


class AppealList(Out):
    appeals: list[Appeal]


class PrizeRow(Out):
    place: int
    entry_id: str
    name: str
    amount: int
    label: str = ""


class PrizesOut(Out):
    event_id: str
    event_name: str = ""
    final: bool
    shrunk: bool
    entries: int
    currency: str = "CNY"
    prizes: list[PrizeRow]
    provisional: bool = Field(default=False, description="final, but an appeal is still open (待裁决): the prizes may "
                              "change until it is decided")
    open_appeals: int = 0


class StandingRow(Out):
    rank: int | None = Field(description="the place; None for a disqualified entry (listed, not ranked)")
    entry_id: str
    name: str
    club: str = ""
    points: dict[str, float]
    tiebreaks: dict[str, float]
    played: int = 0
    byes: int = 0
    prize: int | None = None
    forfeited: bool = Field(default=False, description="an unexcused forfeit: ranked last of the stage")
    decided_by: str | None = Field(default=None, description="level on points with the next row: the tie-break that "
                                                             "placed this one ahead (glossary point)")
    decided_values: list[float] = Field(default_factory=list, description="that tie-break's value here and in the next row")
    reached: str | None = Field(default=None, description="a knockout stage: how far the entry went (glossary "
                                "knockout_reached: champion, runner_up, third, fourth, out_semi_final, …; in a "
                                "multi-stage event's last stage also out_groups / out_stage for entries out in an "
                                "earlier stage, and disqualified)")
    out_in_stage: int | None = Field(default=None, description="the last stage's standings of a multi-stage event: "
                                     "the stage (1-based) this entry went out in, ranked below the last stage's entries "
                                     "by its results there (rules.md §9)")
    disqualified: bool = Field(default=False, description="disqualified: listed last, not ranked, no prize")


class StandingsOut(Out):
    event_id: str
    stage: int
    method: str
    tiebreaks: list[str]
    standings: list[StandingRow]
    final: bool = False
    lots_seed: int | None = Field(default=None, description="the seed of the draw of lots (lots = a published, "
                                                            "reproducible draw from this seed)")
    provisional: bool = Field(default=False, description="final, but an appeal is still open (待裁决): the places may "
                              "change until it is decided")
    open_appeals: int = 0


class BonusPlayer(Out):
    entry_id: str
    name: str
    total: int


class BonusDeal(Out):
    round: int
    table: int
    deal: int
    bombs: int
    each: int
    extra: dict | None = None


class BonusesOut(Out):
    players: list[BonusPlayer]
    deals: list[BonusDeal]
    currency: str


class AuditRecord(Out):
    id: str
    at: datetime
    who: str
    action: str
    round: int | None = None
    table: int | None = None
    before: Any = None
    after: Any = None
    reason: str = ""
