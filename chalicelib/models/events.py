"""An event's configuration: game, entry kind, fees, window, stages with their scoring, the referee's rules (lateness, appeals, corrections) and prizes, with the defaults of rules.md."""
from __future__ import annotations

from datetime import datetime, UTC
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_serializer, model_validator

from .base import FormatName, Game, Loose, Out, Strict


class EntryKind(Strict):
    kind: Literal["individual", "pair", "team"]
    size: int | None = Field(default=None, ge=1, le=12)
    min_size: int | None = Field(default=None, ge=1, le=12, description="a team: the fewest members a roster may "
                                 "have (default: size); a Guandan team (集体赛) takes 4 to 6 within one event")

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
        if self.kind != "team" and self.min_size not in (None, self.size):
            raise ValueError("entry.min_size belongs to a team entry")
        if self.min_size is not None and self.min_size > self.size:
            raise ValueError("entry.min_size is more than entry.size")
        return self

    @property
    def members(self) -> int:
        return self.size or 1

    @model_serializer(mode="wrap")
    def _without_unset_min(self, handler):
        out = handler(self)
        if isinstance(out, dict) and out.get("min_size") is None:
            out.pop("min_size", None)   # only a team of 4 to 6 names it: other entries read as before
        return out

    @property
    def fewest(self) -> int:
        """The fewest members a roster may have (a team of 4 to 6: min_size; otherwise its size)."""
        return self.min_size or self.members


class Fee(Strict):
    amount: int = Field(default=0, ge=0, le=10_000_000, description="minor units of the tournament's currency; 0 = free")
    per: Literal["person", "entry"] = "person"
    refund_until: datetime | None = Field(default=None, description="full refund before this time; default: registration close")
    offline_hold_hours: int = Field(default=48, ge=1, le=24 * 30, description="a place to be paid at the desk or by "
                                    "transfer is held this long (never past the registration deadline), then released "
                                    "as an unpaid online hold is")


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
    return value.replace(tzinfo=None) if value.tzinfo is None else value.astimezone(UTC).replace(tzinfo=None)


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
    # seed 000: "双人赛中，每副牌非义务方升1级" — slow play: the other side rises this many levels per deal
    slow_play_levels: int = Field(default=1, ge=0, le=12)
    # seed 003 "从总分扣除违规方1个级差分": level points have no 级差分, so the deduction comes off level points
    deduction_points: float = Field(default=1, ge=0, le=100)
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
    # seed 000: "在比赛分制的双人赛中，非义务方一节（轮）比赛中每副牌升二级" — slow play under match points
    slow_play_levels: int = Field(default=2, ge=0, le=12)
    # seed 003: "从总分扣除违规方1个级差分"
    deduction_points: float = Field(default=1, ge=0, le=100)
    team_rooms: bool = Field(default=False, description="set by the event: a Guandan team event (集体赛) scores each "
                             "team match from its open and closed rooms (rules.md §8)")
    team_level_diff: Literal["combined", "sum"] = Field(
        default="combined", description="Guandan team match 级差分 (rules.md §9): 'combined' — the 26-point scale "
                                        "(level_diff_table) applied once to the two rooms' combined level difference, "
                                        "so a drawn team match is 13 : 13 and a bye (1.5 / 17) stays worth a little "
                                        "more; 'sum' — the sum of the two rooms' 级差分 (a bye then 34)")
    # rules.md §1 "a knockout match must produce a winner"; for a team match that gains the same levels in both
    # rooms the seeds give no rule (000 is silent). Default: one extra deal (加赛) decides, as seed 002 plays an
    # extra game on a knockout tie ("淘汰賽階段若平局，則加賽"); or the home team (the better placed) goes through.
    team_knockout_tie: Literal["extra_deal", "home"] = Field(
        default="extra_deal", description="Guandan team knockout: who wins a team match that gained the same levels "
                                          "(extra_deal: the winner of one extra deal, entered as the table's tie_break; "
                                          "home: the home team, the better placed entry)")
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
    # seed 002 "复赛过程中…均以32分计分": the 32-point rule belongs to the round robin (复赛); in a knockout a
    # withdrawal forfeits the match and results already played stand
    withdrawal_points_formats: list[FormatName] = Field(default_factory=lambda: ["round_robin"], max_length=4)
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
    # seed 003: "按所拿回张数乘以10分的规则对出错方进行罚分" and "对抗方连升3级" / "判给非出错方连升3级"
    wrong_play_points_per_card: int = Field(default=10, ge=0, le=100)
    penalty_levels: int = Field(default=3, ge=0, le=12)
    tiebreaks: list[TieBreak] = Field(default_factory=lambda: ["group_points", "games_won", "head_to_head", "lots"])

    @field_validator("best_of")
    @classmethod
    def _odd(cls, v):
        if v % 2 == 0:
            raise ValueError("best_of must be odd")
        return v


Scoring = Annotated[
    LevelPointsScoring | MatchPointsScoring | TablePointsScoring | PositionPointsScoring | LevelTableScoring,
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
    "guandan": {"pair": {2}, "team": {4, 5, 6}},   # team: 集体赛, two pairs play, the others substitute
    "tractor": {"pair": {2}},
    "doudizhu": {"individual": {1}},
    "gouji": {"team": {3}},
}
# Per-game defaults of rules.md §5/§8 where the seeds differ (tests/engine/test_game_defaults.py checks them
# against rules.md's words): whose unexcused forfeit ranks last (000), who finishes a Swiss early (000),
# whose knockout is redrawn each round (003).
FORFEIT_RANKS_LAST = frozenset({"guandan"})
EARLY_FINISH = frozenset({"guandan"})
KNOCKOUT_REDRAW = frozenset({"tractor"})

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
        default=None, description="Swiss: entries certain of 1st, 2nd, … place stop and score the average of their "
                                  "matches played per round (rules.md §5, §8); default on for Guandan unless the "
                                  "next stage carries points over, off otherwise")
    knockout_draw: Literal["bracket", "redraw", "choice"] | None = Field(
        default=None, description="knockout: a fixed seeded bracket, each round drawn afresh among the winners "
                                  "(seed 003 \"晋级后重新抽签比赛\"), or round one chosen by the better-placed entries in "
                                  "order (seed 000 \"优先选择淘汰赛对手\", the director records the choices); default "
                                  "redraw for Tractor, bracket otherwise")
    third_place: bool = Field(
        default=False, description="knockout: the semi-finals' losers play a 3rd-place match (三四名决赛) alongside "
                                   "the final; its winner is 3rd, its loser 4th (off: the tie-break chain places them)")
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
        if self.format != "knockout" and self.knockout_draw is not None:
            raise ValueError("'knockout_draw' belongs to knockout")
        if self.third_place and (self.format != "knockout" or self.double_elimination):
            raise ValueError("'third_place' belongs to a single-elimination knockout")
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
    forfeit_at_limit: bool | None = Field(default=None, description="true: arriving exactly at the limit is already "
                                          "a forfeit (≥; seed 003 \"迟到15分钟者视为弃权\", seed 001 \"开始后五分钟…没有"
                                          "到场的\"); false: only after it (>). Default: true for Tractor and Dou "
                                          "Dizhu, false otherwise (rules.md §9)")
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


class LateEntry(Strict):
    """api.md v1.2 (issue 24): an entry checked in after a draw joins from the next round, until this round of
    the first stage (Swiss default: the second-last), with this score."""
    until_round: int | None = Field(default=None, ge=1, le=60, description="the last round a late entry may join "
                                    "(default: the first stage's second-last round; 1 for other formats)")
    score: float = Field(default=0, ge=0, le=10_000, description="its starting points (the stage's first point name)")


class Substitutes(Strict):
    """rules.md §8 (seeds 000, 003): a team changes a player between rounds with the chief referee's approval;
    pairs only when the event allows it."""
    pairs: bool = False


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
    mixed_pairs: bool = Field(default=False, description="a mixed-pairs event (男女混合双人赛): the man sits N or W, the "
                                                         "woman S or E, from the roster's gender (rules.md §8)")
    mixed_team: bool = Field(default=False, description="a mixed-team event (混合团体赛, seed 000): every member's gender "
                             "on the roster; each lineup one men's pair and one women's pair, the men E–W and the "
                             "women N–S (rules.md §9)")
    late_entry: LateEntry = Field(default_factory=LateEntry)
    substitutes: Substitutes = Field(default_factory=Substitutes)
    late_entries: bool = Field(default=False, description="registration stays open after the first round is drawn "
                               "(late entries, 补报); off: registration closes when the first round is drawn")
    forfeit_ranks_last: bool | None = Field(
        default=None, description="an unexcused forfeit ranks the entry last of the stage and, in its last round, bars "
                                  "it from the next (seed 000, Guandan's default); Dou Dizhu (001) and Tractor (003) "
                                  "only forfeit the round (rules.md §5)")
    force_majeure_opponent: Literal["forfeit_win", "draw"] = Field(
        default="forfeit_win", description="force majeure (seed 000 §36 \"缺赛者按平手计分，其对手的分数按第三十四条计分\"): "
                                           "the absent entry scores a draw; its opponent is scored as against a "
                                           "forfeit ('forfeit_win', rules.md §9) or as a draw too ('draw')")
    seeding: Literal["random", "number", "rating"] = Field(
        default="random", description="round 1's order (抽签 / 报名顺序 / 等级分): 'random' a draw of lots from the round's "
                                      "seed; 'number' the order of registration; 'rating' the players' rating in a "
                                      "ranking counting this event (issue 42), level ones by lot")
    seeding_ranking: str | None = Field(default=None, max_length=64,
                                        description="seeding 'rating': the ranking whose ratings order round 1 "
                                                    "(default: the first rated ranking counting the event)")
    result_entry: Literal["north_south", "either"] = Field(
        default="north_south", description="who enters a table's result from the phones (rules.md §8, electronic "
                                           "entry, seed 000): the side sitting N–S enters and E–W confirms; "
                                           "'either': any side enters and another confirms. A three-seat table "
                                           "always needs both other players (or the director).")

    @model_validator(mode="after")
    def _consistent(self):
        if self.lateness is None:
            self.lateness = default_lateness(self.game)
        if self.appeals is None:
            self.appeals = default_appeals(self.game)
        if self.forfeit_ranks_last is None:
            self.forfeit_ranks_last = self.game in FORFEIT_RANKS_LAST
        if self.mixed_pairs and self.entry.kind != "pair":
            raise ValueError("mixed_pairs: only a pair event can be mixed pairs")
        if self.mixed_team and not (self.game == "guandan" and self.entry.kind == "team" and self.entry.size >= 4):
            raise ValueError("mixed_team: only a Guandan team event of four or more can be a mixed team")
        kinds = GAME_ENTRY_KINDS[self.game]
        if (self.entry.kind not in kinds or self.entry.members not in kinds[self.entry.kind]
                or self.entry.fewest not in kinds[self.entry.kind]):
            allowed = ", ".join(f"{k} of {sorted(v)}" for k, v in kinds.items())
            got = (f"{self.entry.fewest}–{self.entry.members}" if self.entry.fewest != self.entry.members
                   else self.entry.members)
            raise ValueError(f"entry: {self.game} takes {allowed} (got {self.entry.kind} of {got})")
        for i, stage in enumerate(self.stages):
            if stage.format not in GAME_FORMATS[self.game]:
                raise ValueError(f"stages[{i}].format: {self.game} does not use {stage.format}")
            team_event = self.game == "guandan" and self.entry.kind == "team"
            if stage.scoring is None:
                stage.scoring = MatchPointsScoring() if team_event else default_scoring(self.game)
            elif stage.scoring.method not in GAME_METHODS[self.game]:
                raise ValueError(f"stages[{i}].scoring.method: {self.game} scores with {', '.join(GAME_METHODS[self.game])}")
            if team_event:
                # rules.md §8: a team match is scored 场分 2 / 1 / 0 and 级差分 from its two rooms
                if stage.scoring.method != "match_points":
                    raise ValueError(f"stages[{i}].scoring.method: a Guandan team event scores with match_points")
                stage.scoring.team_rooms = True
            elif getattr(stage.scoring, "team_rooms", False):
                raise ValueError(f"stages[{i}].scoring.team_rooms belongs to a Guandan team event")
            if i > 0 and stage.advance is None:
                stage.advance = Advance()
            carries_next = i + 1 < len(self.stages) and self.stages[i + 1].carry_over != "none"
            if stage.early_finish is None:
                stage.early_finish = self.game in EARLY_FINISH and stage.format == "swiss" and not carries_next
            elif stage.early_finish and stage.format != "swiss":
                raise ValueError(f"stages[{i}].early_finish belongs to swiss")
            if stage.format == "knockout" and stage.knockout_draw is None:
                stage.knockout_draw = "redraw" if self.game in KNOCKOUT_REDRAW else "bracket"
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
    """Fields an organiser may change; merged into the stored config and validated whole. The game and the entry
    kind may change only while the event has no entries (409 locked_once_entries)."""
    name: str | None = Field(default=None, min_length=1, max_length=200)
    game: Game | None = None
    entry: EntryKind | None = None
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
    forfeit_ranks_last: bool | None = None
    force_majeure_opponent: Literal["forfeit_win", "draw"] | None = None
    mixed_pairs: bool | None = None
    mixed_team: bool | None = None
    late_entries: bool | None = None
    result_entry: Literal["north_south", "either"] | None = None
    seeding: Literal["random", "number", "rating"] | None = None
    seeding_ranking: str | None = Field(default=None, max_length=64)
    late_entry: LateEntry | None = None
    substitutes: Substitutes | None = None
    version: int | None = Field(default=None, description="send the version you read to avoid lost updates")


class Counters(Loose):
    taken: int = 0          # confirmed + held: the places in use
    confirmed: int = 0
    held: int = 0
    waitlisted: int = 0
    version: int = 0
    drawn: bool = False     # the first round is drawn: registration closes unless late entries are on
    late_closed: bool = False   # the last round a late entry may join is drawn: registration closes all the same
    shards: int = Field(default=1, exclude=True)   # counter items the counts are summed from (store/counters.py)


class Event(Loose):
    id: str
    tournament_id: str
    organiser_id: str
    config: EventConfig
    created_at: datetime
    version: int = 1
    counters: Counters = Field(default_factory=Counters)


class SetupWarning(Out):
    """A set-up warning on the answer of a create or edit (services/setup_warnings.py): saved anyway, not an error.
    The console words it as console.warn_<code> with `params` (local times "YYYY-MM-DD HH:MM")."""
    code: Literal["deadline_past", "deadline_after_start", "stage_outside_days", "shrink_always", "stages_overlap"]
    params: dict[str, str | int] = Field(default_factory=dict)
    event_id: str | None = Field(default=None, description="on a tournament's answer: the event it is about")
