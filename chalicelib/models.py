"""Pydantic models shared by the api, the services and the store.

Inputs (…In / …Patch) are strict about unknown fields so typos are reported, not ignored.
The event configuration carries every option with the defaults of rules.md.
"""
from __future__ import annotations

import re
from datetime import date, datetime, timezone
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

Game = Literal["guandan", "doudizhu", "gouji", "tractor"]
FormatName = Literal["swiss", "round_robin", "knockout", "special_swiss"]

# ISO 4217 codes we accept, with their minor-unit exponent (all used here have 2 or 0).
CURRENCY_EXPONENT = {"CNY": 2, "HKD": 2, "TWD": 2, "MOP": 2, "SGD": 2, "MYR": 2, "USD": 2,
                     "EUR": 2, "GBP": 2, "AUD": 2, "CAD": 2, "NZD": 2, "JPY": 0, "KRW": 0}


# defer_build: validators are built on first use, not at import (keeps the Lambda cold start short).
class Strict(BaseModel):
    """Inputs. Request bodies are validated from JSON in strict mode, with `null` read as "not given"
    (api.md v1.1; api/routing.parse_body)."""
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, defer_build=True)


class Loose(BaseModel):
    """Stored/output models: tolerate fields added by later versions."""
    model_config = ConfigDict(extra="ignore", defer_build=True)


class Out(BaseModel):
    """Answers of the API."""
    model_config = ConfigDict(defer_build=True)


# --------------------------------------------------------------------------- tournaments

def _check_timezone(value: str) -> str:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {value!r} (use an IANA name such as Asia/Shanghai)")
    return value


def _check_currency(value: str) -> str:
    value = value.upper()
    if value not in CURRENCY_EXPONENT:
        raise ValueError(f"unsupported currency {value!r}; one of {sorted(CURRENCY_EXPONENT)}")
    return value


class TournamentIn(Strict):
    name: str = Field(min_length=1, max_length=200)
    venue: str = Field(default="", max_length=300)
    timezone: str = Field(default="Asia/Shanghai", min_length=1, max_length=64, description="an IANA time zone")
    currency: str = Field(default="CNY", pattern=r"^[A-Za-z]{3}$", description="ISO 4217")
    starts_on: date
    ends_on: date | None = None

    _tz = field_validator("timezone")(_check_timezone)
    _cur = field_validator("currency")(_check_currency)

    @model_validator(mode="after")
    def _dates(self):
        if self.ends_on is None:
            self.ends_on = self.starts_on
        if self.ends_on < self.starts_on:
            raise ValueError("ends_on is before starts_on")
        return self


class TournamentPatch(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    venue: str | None = Field(default=None, max_length=300)
    timezone: str | None = Field(default=None, min_length=1, max_length=64)
    currency: str | None = Field(default=None, pattern=r"^[A-Za-z]{3}$")
    starts_on: date | None = None
    ends_on: date | None = None

    @field_validator("timezone")
    @classmethod
    def _tz(cls, v):
        return None if v is None else _check_timezone(v)

    @field_validator("currency")
    @classmethod
    def _cur(cls, v):
        return None if v is None else _check_currency(v)


class Tournament(Loose):
    id: str
    organiser_id: str
    name: str
    venue: str = ""
    timezone: str
    currency: str
    starts_on: date
    ends_on: date
    created_at: datetime
    version: int = 1


# --------------------------------------------------------------------------- event config

class EntryKind(Strict):
    kind: Literal["individual", "pair", "team"]
    size: int | None = Field(default=None, ge=1, le=12)

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any):
        if isinstance(data, str):
            return {"kind": data}
        return data

    @model_validator(mode="after")
    def _size(self):
        fixed = {"individual": 1, "pair": 2}
        if self.kind in fixed:
            if self.size not in (None, fixed[self.kind]):
                raise ValueError(f"a {self.kind} entry has {fixed[self.kind]} member(s); drop 'size' or use kind 'team'")
            self.size = fixed[self.kind]
        elif self.size is None or self.size < 2:
            raise ValueError("entry.size: a team entry needs a 'size' of 2 or more")
        return self

    @property
    def members(self) -> int:
        return self.size or 1


class Fee(Strict):
    amount: int = Field(default=0, ge=0, le=10_000_000, description="minor units of the tournament's currency; 0 = free")
    per: Literal["person", "entry"] = "person"
    refund_until: datetime | None = Field(default=None, description="full refund before this time; default: registration close")


class Eligibility(Strict):
    kind: Literal["open", "codes"] = "open"
    codes: list[str] = Field(default_factory=list, max_length=1000)

    @model_validator(mode="after")
    def _codes(self):
        if self.kind == "codes" and not self.codes:
            raise ValueError("eligibility 'codes' needs at least one code")
        self.codes = [c.strip().upper() for c in self.codes if c.strip()]
        return self


class RegistrationWindow(Strict):
    opens_at: datetime | None = Field(default=None, description="UTC; a time without offset is read in the tournament's time zone")
    closes_at: datetime | None = None
    eligibility: Eligibility = Field(default_factory=Eligibility)

    @model_validator(mode="after")
    def _order(self):
        if self.opens_at and self.closes_at and _comparable(self.closes_at) <= _comparable(self.opens_at):
            raise ValueError("registration.closes_at must be after opens_at")
        return self


def _comparable(value: datetime) -> datetime:
    return value.replace(tzinfo=None) if value.tzinfo is None else value.astimezone(timezone.utc).replace(tzinfo=None)


# Tie-break key names understood by engine/standings.py.
TieBreak = Literal["level_points", "net_points", "match_points", "level_diff_points", "table_points",
                   "small_points", "landlord_deals", "position_points", "games_won", "group_points",
                   "head_to_head", "head_to_head_two", "opponents_match_points", "opponents_points", "lots"]


class LevelPointsScoring(Strict):
    method: Literal["level_points"] = "level_points"
    pass_a_points: float = Field(default=15, ge=0, le=100)
    bye_level_points: float = Field(default=10, ge=0, le=100, description="rules.md is silent: a bye's level points")
    a_failure_limit: int | None = Field(default=None, ge=1, le=10, description="failed attempts at A before dropping back to 2; none by default")
    deals_per_round: int | None = Field(default=None, ge=1, le=100)
    minutes: int = Field(default=60, ge=5, le=600)
    tiebreaks: list[TieBreak] = Field(default_factory=lambda: ["level_points", "head_to_head", "net_points", "lots"])


def _default_level_diff_table() -> list[int]:
    # Winner's 级差分 for a level difference d = 0..13 (passing A counts one above A): 13 + d, capped at 26.
    return [min(26, 13 + d) for d in range(14)]


class MatchPointsScoring(Strict):
    method: Literal["match_points"] = "match_points"
    win: float = Field(default=2, ge=0, le=100)
    draw: float = Field(default=1, ge=0, le=100)
    loss: float = Field(default=0, ge=0, le=100)
    bye_match_points: float = Field(default=1.5, ge=0, le=100)
    bye_level_diff_points: float = Field(default=17, ge=0, le=100)
    withdrawal_match_points: float = Field(default=2, ge=0, le=100)
    withdrawal_level_diff_points: float = Field(default=17, ge=0, le=100)
    level_diff_table: list[Annotated[int, Field(ge=0, le=100)]] = Field(default_factory=_default_level_diff_table, min_length=2, max_length=20,
                                        description="winner's 级差分 by level difference; loser gets 26 minus it")
    a_failure_limit: int | None = Field(default=None, ge=1, le=10)
    minutes: int = Field(default=60, ge=5, le=600)
    tiebreaks: list[TieBreak] = Field(default_factory=lambda: ["match_points", "level_diff_points",
                                                                "head_to_head_two", "opponents_match_points", "lots"])


class BombBonus(Strict):
    enabled: bool = True
    each: dict[Annotated[int, Field(ge=1, le=20)], Annotated[int, Field(ge=0, le=1_000_000)]] = Field(
        default_factory=lambda: {3: 50, 4: 100, 5: 200, 6: 500}, max_length=20,
        description="bombs in a deal → amount to each player (the highest key applies to more)")
    extra: int = Field(default=100, ge=0, le=1_000_000, description="to a player who made every bomb of the deal")


class TablePointsScoring(Strict):
    method: Literal["table_points"] = "table_points"
    deals_per_round: int = Field(default=6, ge=1, le=50)
    minutes: int = Field(default=40, ge=5, le=600)
    places: list[Annotated[float, Field(ge=0, le=100)]] = Field(default_factory=lambda: [5, 3, 1], min_length=3, max_length=3)
    bye_table_points: float = Field(default=3, ge=0, le=100)
    doubling: bool = False
    max_doublings_per_deal: int = Field(default=8, ge=1, le=15, description="plausibility: bombs + rocket + spring "
                                        "in one deal (8: 256×; more is refused as a typing error)")
    bomb_bonus: BombBonus = Field(default_factory=BombBonus)
    tiebreaks: list[TieBreak] = Field(default_factory=lambda: ["table_points", "small_points", "landlord_deals", "lots"])


class PositionPointsScoring(Strict):
    method: Literal["position_points"] = "position_points"
    games_per_match: int = Field(default=1, ge=1, le=20)
    position_values: list[Annotated[int, Field(ge=0, le=100)]] = Field(default_factory=lambda: [7, 5, 4, 3, 2, 1], min_length=6, max_length=6)
    withdrawal_points: float = Field(default=32, ge=0, le=1000)
    extra_games_before_lots: int = Field(default=3, ge=0, le=10)
    win: float = Field(default=2, ge=0, le=100)
    draw: float = Field(default=1, ge=0, le=100)
    loss: float = Field(default=0, ge=0, le=100)
    # seed 002: "累计得分按总分数排出名次" — places by total points first
    tiebreaks: list[TieBreak] = Field(default_factory=lambda: ["position_points", "match_points", "head_to_head", "lots"])


class LevelTableScoring(Strict):
    method: Literal["level_table"] = "level_table"
    start_level: int = Field(default=3, ge=2, le=14)
    best_of: int = Field(default=3, ge=1, le=9)
    minutes: int = Field(default=90, ge=5, le=600)
    tiebreaks: list[TieBreak] = Field(default_factory=lambda: ["group_points", "games_won", "head_to_head", "lots"])

    @field_validator("best_of")
    @classmethod
    def _odd(cls, v):
        if v % 2 == 0:
            raise ValueError("best_of must be odd")
        return v


Scoring = Annotated[
    Union[LevelPointsScoring, MatchPointsScoring, TablePointsScoring, PositionPointsScoring, LevelTableScoring],
    Field(discriminator="method"),
]

GAME_METHODS: dict[str, tuple[str, ...]] = {
    "guandan": ("level_points", "match_points"),
    "doudizhu": ("table_points",),
    "gouji": ("position_points",),
    "tractor": ("level_table",),
}
GAME_ENTRY_KINDS: dict[str, dict[str, set[int]]] = {
    # kind → allowed member counts
    "guandan": {"pair": {2}},
    "tractor": {"pair": {2}},
    "doudizhu": {"individual": {1}},
    "gouji": {"team": {3}},
}
GAME_FORMATS: dict[str, tuple[str, ...]] = {
    "guandan": ("swiss", "round_robin", "knockout", "special_swiss"),
    "tractor": ("swiss", "round_robin", "knockout", "special_swiss"),
    "gouji": ("swiss", "round_robin", "knockout", "special_swiss"),
    "doudizhu": ("swiss",),  # three-seat tables re-seated by standing each round
}


class Advance(Strict):
    per_group: int | None = Field(default=None, ge=1, le=64)
    total: int | None = Field(default=None, ge=2, le=4096)


class ScheduledRound(Strict):
    starts_at: datetime
    ends_at: datetime

    @model_validator(mode="after")
    def _order(self):
        if _comparable(self.ends_at) <= _comparable(self.starts_at):
            raise ValueError("a round ends after it starts")
        return self


class Schedule(Strict):
    """When a stage's rounds are played (rules.md §7): the first round's start plus round and break minutes,
    or every round's times. A time without an offset is read in the tournament's time zone."""
    first_round_at: datetime | None = None
    round_minutes: int = Field(default=50, ge=5, le=600)
    break_minutes: int = Field(default=10, ge=0, le=600)
    rounds: list[ScheduledRound] | None = Field(default=None, max_length=60)

    @model_validator(mode="after")
    def _one_way(self):
        if (self.first_round_at is None) == (self.rounds is None):
            raise ValueError("schedule: give either first_round_at (with round/break minutes) or rounds")
        return self


class Stage(Strict):
    name: str = Field(default="", max_length=100)
    schedule: Schedule | None = None
    format: FormatName
    rounds: int | None = Field(default=None, ge=1, le=30)
    groups: int | None = Field(default=None, ge=1, le=256)
    double: bool = False
    double_elimination: bool = False
    best_of: int = Field(default=1, ge=1, le=9)
    advance: Advance | None = None
    carry_over: Literal["none", "full", "half"] = "none"
    separate_related: bool = Field(default=True, description="keep same-club entries apart (round 1 / groups)")
    rematches: Literal["fewest", "forbidden"] = Field(
        default="fewest", description="when no draw avoids a rematch: draw the fewest (named), or refuse the draw")
    early_finish: bool | None = Field(
        default=None, description="Swiss: an entry certain of first place stops and scores its average per round "
                                  "(rules.md §5); default on for Guandan, off otherwise")
    scoring: Scoring | None = None

    @model_validator(mode="after")
    def _format_options(self):
        if self.format in ("knockout", "round_robin") and self.rounds is not None:
            raise ValueError(f"'rounds' is fixed by the {self.format} format; leave it out")
        if self.format in ("swiss",) and self.rounds is None:
            raise ValueError("a swiss stage needs 'rounds'")
        if self.format != "round_robin" and (self.groups or self.double):
            raise ValueError("'groups' and 'double' belong to round_robin")
        if self.format != "knockout" and self.double_elimination:
            raise ValueError("'double_elimination' belongs to knockout")
        if self.best_of % 2 == 0:
            raise ValueError("best_of must be odd")
        return self


class Prize(Strict):
    place_from: int = Field(ge=1, le=100_000)
    place_to: int | None = Field(default=None, ge=1, le=100_000)
    amount: int = Field(default=0, ge=0, le=100_000_000, description="whole currency units, as prize tables state them")
    label: str = Field(default="", max_length=100)

    @model_validator(mode="after")
    def _range(self):
        if self.place_to is None:
            self.place_to = self.place_from
        if self.place_to < self.place_from:
            raise ValueError("place_to is before place_from")
        return self


class StartLevel(Strict):
    after_minutes: float = Field(ge=0, le=600)
    level: int = Field(ge=2, le=14)


class Lateness(Strict):
    """rules.md §7: what lateness does, from the round's scheduled start."""
    forfeit_after_minutes: float | None = Field(default=None, ge=0, le=600, description="later than this: forfeit")
    from_round: int = Field(default=1, ge=1, le=60, description="the rule applies from this round of the stage")
    start_level: list[StartLevel] = Field(default_factory=list, max_length=10,
                                          description="Guandan: the other side starts at this level")


def default_lateness(game: str) -> Lateness:
    return {
        "guandan": Lateness(forfeit_after_minutes=10, start_level=[StartLevel(after_minutes=0, level=3),
                                                                   StartLevel(after_minutes=5, level=4)]),
        "doudizhu": Lateness(forfeit_after_minutes=5, from_round=2),
        "tractor": Lateness(forfeit_after_minutes=15),
        "gouji": Lateness(),
    }[game]


class Appeals(Strict):
    """rules.md §7: appeals (申诉) within a window after the round's scheduled end, with a fee."""
    window_minutes: int = Field(default=30, ge=1, le=24 * 60)
    fee: int = Field(default=0, ge=0, le=10_000_000, description="minor units of the tournament's currency")
    refund_if_upheld: bool = True


def default_appeals(game: str) -> Appeals:
    return Appeals(window_minutes=5, fee=20000) if game == "doudizhu" else Appeals()


class PrizeShrink(Strict):
    """seed 003: fewer than `below_entries` entries → the reduced prize list."""
    below_entries: int = Field(default=20, ge=1, le=100_000)
    prizes: list[Prize] = Field(default_factory=list, max_length=100)


class EventConfig(Strict):
    name: str = Field(min_length=1, max_length=200)
    game: Game
    entry: EntryKind
    capacity: int = Field(ge=1, le=100_000)
    waitlist: bool = True
    fee: Fee = Field(default_factory=Fee)
    registration: RegistrationWindow = Field(default_factory=RegistrationWindow)
    stages: list[Stage] = Field(min_length=1, max_length=6)
    prizes: list[Prize] = Field(default_factory=list, max_length=100)
    prize_shrink: PrizeShrink | None = None
    allow_partner_wanted: bool = Field(default=True, description="players may register alone and ask for a partner (商会协调组队)")
    lateness: Lateness | None = Field(default=None, description="default per game (rules.md §7)")
    appeals: Appeals | None = Field(default=None, description="default per game (rules.md §7)")
    correction_minutes: int = Field(default=30, ge=0, le=24 * 60,
                                    description="results may be corrected this long after the round's scheduled end")

    @model_validator(mode="after")
    def _consistent(self):
        if self.lateness is None:
            self.lateness = default_lateness(self.game)
        if self.appeals is None:
            self.appeals = default_appeals(self.game)
        kinds = GAME_ENTRY_KINDS[self.game]
        if self.entry.kind not in kinds or self.entry.members not in kinds[self.entry.kind]:
            allowed = ", ".join(f"{k} of {sorted(v)}" for k, v in kinds.items())
            raise ValueError(f"entry: {self.game} takes {allowed} (got {self.entry.kind} of {self.entry.members})")
        for i, stage in enumerate(self.stages):
            if stage.format not in GAME_FORMATS[self.game]:
                raise ValueError(f"stages[{i}].format: {self.game} does not use {stage.format}")
            if stage.scoring is None:
                stage.scoring = default_scoring(self.game)
            elif stage.scoring.method not in GAME_METHODS[self.game]:
                raise ValueError(f"stages[{i}].scoring.method: {self.game} scores with {', '.join(GAME_METHODS[self.game])}")
            if i > 0 and stage.advance is None:
                stage.advance = Advance()
            if stage.early_finish is None:
                stage.early_finish = self.game == "guandan" and stage.format == "swiss"
            elif stage.early_finish and stage.format != "swiss":
                raise ValueError(f"stages[{i}].early_finish belongs to swiss")
        if self.stages[0].carry_over != "none":
            raise ValueError("stages[0].carry_over: the first stage has nothing to carry over")
        return self


def default_scoring(game: str):
    return {
        "guandan": LevelPointsScoring,
        "doudizhu": TablePointsScoring,
        "gouji": PositionPointsScoring,
        "tractor": LevelTableScoring,
    }[game]()


class EventPatch(Strict):
    """Fields an organiser may change; merged into the stored config and validated whole."""
    name: str | None = Field(default=None, min_length=1, max_length=200)
    capacity: int | None = Field(default=None, ge=1, le=100_000)
    waitlist: bool | None = None
    fee: Fee | None = None
    registration: RegistrationWindow | None = None
    stages: list[Stage] | None = Field(default=None, min_length=1, max_length=6)
    prizes: list[Prize] | None = None
    prize_shrink: PrizeShrink | None = None
    allow_partner_wanted: bool | None = None
    lateness: Lateness | None = None
    appeals: Appeals | None = None
    correction_minutes: int | None = Field(default=None, ge=0, le=24 * 60)
    version: int | None = Field(default=None, description="send the version you read to avoid lost updates")


class Counters(Loose):
    taken: int = 0          # confirmed + held: the places in use
    confirmed: int = 0
    held: int = 0
    waitlisted: int = 0
    version: int = 0


class Event(Loose):
    id: str
    tournament_id: str
    organiser_id: str
    config: EventConfig
    created_at: datetime
    version: int = 1
    counters: Counters = Field(default_factory=Counters)


# --------------------------------------------------------------------------- organisers

class Organiser(Loose):
    id: str
    name: str
    created_at: datetime
    revoked: bool = False
    acting_as: str | None = Field(default=None, exclude=True, description="set per request: a staff member acting")


class OrganiserIn(Strict):
    name: str = Field(min_length=1, max_length=200)


# --------------------------------------------------------------------------- public views

class PublicEvent(Out):
    id: str
    name: str
    game: Game
    entry: EntryKind
    capacity: int
    places_left: int
    waitlist: bool
    waitlisted: int
    fee: Fee
    currency: str
    registration_state: Literal["not_yet_open", "open", "closed"]
    opens_at: datetime | None
    closes_at: datetime | None
    opens_at_local: str | None
    closes_at_local: str | None
    eligibility: Literal["open", "codes"]
    stages: list[dict]
    prizes: list[Prize]


class PublicTournament(Out):
    id: str
    name: str
    venue: str
    timezone: str
    currency: str
    starts_on: date
    ends_on: date
    events: list[PublicEvent]
    online_payment: bool = Field(default=False, description="pages offer online payment only when it is on")


class ErrorBody(Out):
    code: str
    message: str
    details: Any = None



# --------------------------------------------------------------------------- entries

EntryStatus = Literal["confirmed", "pending_payment", "waitlisted", "partner_wanted", "cancelled", "withdrawn",
                      "merged"]
# Statuses that hold one of the event's places.
PLACE_STATUSES = ("confirmed", "pending_payment")


def normalise_phone(v: str | None) -> str | None:
    if v is None or not v.strip():
        return None
    digits = re.sub(r"[\s\-]", "", v)
    if not (re.fullmatch(r"1[3-9]\d{9}", digits) or re.fullmatch(r"\+\d{7,15}", digits)):
        raise ValueError("phone: not a valid phone number (a mainland mobile like 13800000000 or +countrycode…)")
    return digits


class MemberIn(Strict):
    name: str = Field(min_length=1, max_length=40)
    phone: str | None = Field(default=None, max_length=30)
    member_code: str | None = Field(default=None, max_length=40)

    @field_validator("phone")
    @classmethod
    def _phone(cls, v):
        return normalise_phone(v)


class RegistrationIn(Strict):
    name: str | None = Field(default=None, max_length=60, description="team or pair name; a player's own name for individuals")
    club: str = Field(default="", max_length=100, description="chamber of commerce or club (related entries)")
    eligibility_code: str | None = Field(default=None, max_length=40)
    members: list[MemberIn] = Field(min_length=1, max_length=12)
    partner_wanted: bool = Field(default=False, description="register alone and ask the organiser for a partner")
    note: str = Field(default="", max_length=300)


class Member(Loose):
    name: str
    phone: str | None = None
    member_code: str | None = None


class Entry(Loose):
    id: str
    event_id: str
    tournament_id: str
    name: str
    club: str = ""
    members: list[Member]
    partner_wanted: bool = False
    status: EntryStatus
    amount_due: int = 0
    amount_paid: int = 0
    currency: str = "CNY"
    payment_state: Literal["none", "unpaid", "pending", "paid", "refund_due", "refunded"] = "none"
    payment_id: str | None = None
    checked_in: bool = False
    created_at: datetime
    updated_at: datetime | None = None
    hold_expires_at: datetime | None = None
    waitlist_key: str | None = None
    manage_token_hash: str = ""
    merged_into: str | None = None
    merged_from: list[str] = Field(default_factory=list)
    registration_id: str | None = None   # several events paid in one go (DayRegistration)
    note: str = ""
    notices: list[str] = Field(default_factory=list)
    version: int = 1

    @property
    def holds_place(self) -> bool:
        return self.status in PLACE_STATUSES


class EntryView(Out):
    """An entry as its owner (manage link) or the organiser sees it: no secrets."""
    id: str
    event_id: str
    tournament_id: str
    name: str
    club: str
    members: list[Member]
    partner_wanted: bool
    status: EntryStatus
    amount_due: int
    amount_paid: int
    currency: str
    payment_state: str
    checked_in: bool
    created_at: datetime
    hold_expires_at: datetime | None
    waitlist_position: int | None = None
    notices: list[str] = []
    version: int
    can_edit_until: datetime | None = None
    online_payment: bool = False
    refund_rule: str | None = None


class RegistrationAnswer(Out):
    entry: EntryView
    manage_token: str
    checkout_url: str | None = None


# --------------------------------------------------------------------------- one checkout for a day

class Contact(Strict):
    name: str = Field(min_length=1, max_length=40)
    phone: str = Field(min_length=1, max_length=30)

    @field_validator("phone")
    @classmethod
    def _phone(cls, v):
        return normalise_phone(v)


class DayItemIn(Strict):
    event_id: str = Field(min_length=1, max_length=64)
    name: str | None = Field(default=None, max_length=60)
    club: str = Field(default="", max_length=100)
    members: list[MemberIn] = Field(min_length=1, max_length=12)
    eligibility_code: str | None = Field(default=None, max_length=40)
    note: str = Field(default="", max_length=300)


class DayRegistrationIn(Strict):
    """Several events of one tournament, one form, one payment (api.md v1.1)."""
    contact: Contact
    items: list[DayItemIn] = Field(min_length=1, max_length=10)


class DayItemOut(Out):
    event_id: str
    event_name: str = ""
    entry: EntryView
    amount: int = 0
    refund_rule: str = ""
    now: dict | None = Field(default=None, description="once the day starts: the entry's table in the latest round")
    results: list[dict] = Field(default_factory=list)


class DayRegistration(Out):
    id: str
    tournament_id: str
    contact: dict
    items: list[DayItemOut]
    amount_due: int
    amount_paid: int = 0
    currency: str
    payment_state: str = "none"
    created_at: datetime


class DayRegistrationAnswer(Out):
    registration: DayRegistration
    manage_token: str
    checkout_url: str | None = None


class EntryPatch(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=60)
    club: str | None = Field(default=None, max_length=100)
    members: list[MemberIn] | None = Field(default=None, min_length=1, max_length=12)
    version: int | None = None


class OfflinePaymentIn(Strict):
    method: Literal["cash", "transfer"]
    amount: int = Field(ge=1, le=10_000_000)
    reference: str = Field(default="", max_length=100)


class JoinIn(Strict):
    entry_ids: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(min_length=2, max_length=12)
    name: str | None = Field(default=None, max_length=60)


class WithdrawIn(Strict):
    reason: str = Field(default="", max_length=200)
    refund: bool | None = Field(default=None, description="override the event's refund rule")


# --------------------------------------------------------------------------- payments

PaymentState = Literal["created", "pending", "confirmed", "failed", "cancelled", "refunded"]


class Payment(Loose):
    id: str
    entry_id: str
    event_id: str
    provider: Literal["stripe", "cash", "transfer"]
    state: PaymentState
    amount: int
    currency: str
    session_id: str | None = None
    checkout_url: str | None = None
    payment_intent: str | None = None
    failure: str | None = None
    reference: str = ""
    amount_refunded: int = 0         # refunded so far (a partial refund keeps the entry)
    items: list[dict] = Field(default_factory=list)   # one payment for several entries: event_id, entry_id, amount
    registration_id: str | None = None
    created_at: datetime
    updated_at: datetime
    version: int = 1


# --------------------------------------------------------------------------- rounds and results

class DrawIn(Strict):
    seed: int | None = Field(default=None, ge=0, le=2 ** 53, description="draw seed; random when left out")


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
    dispute: dict | None = Field(default=None, description="open dispute: reason, by, at")
    start_levels: dict[str, int] | None = Field(default=None, description="Guandan lateness: the level a side starts at")
    arrivals: dict[str, dict] | None = Field(default=None, description="recorded arrival per entry: at, late_minutes")
    forfeit: dict | None = Field(default=None, description="entry, excused, force_majeure, reason")
    codes: list[str] | None = Field(default=None, description="the sides' table codes (organiser only)")
    why: dict | None = Field(default=None, description="the pairing's reason, structured (glossary.py words it)")
    reason_zh: str = ""
    reason_en: str = ""


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
    notes: list[str] = Field(default_factory=list)
    drawn_at: datetime | None = None
    starts_at: datetime | None = None
    ends_at: datetime | None = None
    closed_at: datetime | None = None
    disputes: list[int] = Field(default_factory=list, description="tables with an open dispute")


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


class StandingRow(Out):
    rank: int
    entry_id: str
    name: str
    club: str = ""
    points: dict[str, float]
    tiebreaks: dict[str, float]
    played: int = 0
    byes: int = 0
    prize: int | None = None
    forfeited: bool = Field(default=False, description="an unexcused forfeit: ranked last of the stage")


class StandingsOut(Out):
    event_id: str
    stage: int
    method: str
    tiebreaks: list[str]
    standings: list[StandingRow]
    final: bool = False


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
