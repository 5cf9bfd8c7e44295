"""Rounds, table results (organiser or table code), standings, bonuses, audit, cards and publishing."""
from __future__ import annotations

from datetime import datetime

from chalice import Blueprint, Response
from pydantic import Field

from ..models import (
    Out,
    AuditRecord,
    BonusesOut,
    DrawIn,
    ForfeitIn,
    LineupIn,
    PairingEditIn,
    ResultIn,
    ResultOut,
    RoundOut,
    RoundTable,
    StandingsOut,
    Strict,
)
from ..services import results as res
from ..services import rounds as svc
from ..services import standings as st
from ..services.tournaments import own_event, own_tournament
from .routing import route

bp = Blueprint(__name__)
TAG = "rounds"


class RoundList(Out):
    rounds: list[dict]
    open_round: int
    not_drawn: list[dict] = Field(default_factory=list, description="checked-in entries no draw has taken, with "
                                  "the reason: late_entry (joins_from_round) or late_entry_closed (issue 24)")
    finished: bool = Field(default=False, description="every stage is played out and the last round closed: "
                                                       "nothing is left to draw")


class AuditList(Out):
    audit: list[AuditRecord]


class PublishOut(Out):
    files: int
    written: int = 0
    bytes: int
    largest: list


class TableView(Out):
    tournament_id: str = ""   # the phone's clock and announcements come from the tournament's published feed
    event_id: str
    event_name: str
    game: str
    round: int
    round_status: str
    method: str
    side: int | None = None
    starts_at: str | None = None
    ends_at: str | None = None
    timezone: str = Field(default="Asia/Shanghai", description="the tournament's IANA time zone: the phone shows "
                          "every time in it, naming it when the phone's own differs")
    table: RoundTable
    seat_names: dict[str, str] = Field(default_factory=dict, description="seat → the player's name where a side fills "
                                       "several seats (a pair: member 1 at its first seat), for the seat buttons")
    deals_per_round: int | None = Field(default=None, description="the round's deal limit, where the game has one")
    penalty_rules: dict | None = Field(default=None, description="Tractor: the stage's wrong_play_points_per_card and "
                                       "penalty_levels, for the phone's penalty form (rules.md §8)")
    result_entry: str = Field(default="north_south", description="who enters: 'north_south' (N–S enter, E–W "
                              "confirm; rules.md §8) or 'either'")
    appeal_window: dict | None = Field(default=None, description="minutes, fee {amount, currency}, refund_if_upheld, "
                                       "deadline (once the round has an end), captain_consent (team events)")
    appeals: list[dict] = Field(default_factory=list, description="this table's appeals: id, entry_id, text, "
                                "status, outcome, ruling, lodged_at, decided_at, deadline, fee, fee_status")
    early_finish: list[dict] = Field(default_factory=list, description="who finished early (not drawn) and what "
                                     "it scores: entry_id, name, place, average, from_round (rules.md §5)")
    members: dict[str, list[str]] | None = Field(default=None, description="team match: each team's members by "
                                                 "number (names only), for lineups and who played")
    knockout: bool = False
    live: str | None = Field(default=None, description="the table's live JSON on the site's origin (issue 43): the "
                             "phone polls it through the CDN instead of this route; its name is known only from here")


def _html(text: str) -> Response:
    return Response(body=text, status_code=200, headers={"Content-Type": "text/html; charset=utf-8"})


@route(bp, "/events/{eid}/rounds", "POST", summary="Draw the next round", auth="organiser", body=DrawIn,
       response=RoundOut, status=201, tag=TAG, errors_=("round_open", "no_valid_pairing", "event_finished", "conflict"),
       roles=())
def draw(ctx, eid):
    out, _ = svc.draw_next(ctx.deps, ctx.organiser, eid, ctx.body.seed, choices=ctx.body.choices)   # publishes (RoundDrawn)
    return out


@route(bp, "/events/{eid}/rounds", "GET", summary="The rounds drawn so far", auth="organiser", response=RoundList, tag=TAG)
def list_rounds(ctx, eid):
    event = own_event(ctx.deps, ctx.organiser, eid)
    state = ctx.deps.repos.rounds.state(eid)
    return RoundList(rounds=state["rounds"], open_round=state.get("open_round", 0) or 0,
                     not_drawn=svc.not_drawn(ctx.deps, event, state), finished=svc.event_finished(ctx.deps, event, state))


@route(bp, "/events/{eid}/rounds/{n}", "GET", summary="A round: tables, seats, codes, results (a page of at most "
       "5,000 tables: ?from=&limit=, tables_total past that)", auth="organiser", response=RoundOut, tag=TAG,
       query=(("from", {"type": "integer", "minimum": 1, "default": 1,
                        "description": "the first table number answered"}),
              ("limit", {"type": "integer", "minimum": 1, "maximum": svc.ROUND_PAGE_TABLES,
                         "default": svc.ROUND_PAGE_TABLES, "description": "at most this many tables, by number"})))
def get_round(ctx, eid, n):
    return svc.get_round(ctx.deps, ctx.organiser, eid, _int(n), first=_query_int(ctx, "from", 1),
                         limit=_query_int(ctx, "limit", None))


@route(bp, "/events/{eid}/rounds/{n}", "PATCH", summary="Edit the open round's pairing (swap, bye, fixed table); "
       "warnings from the draw's cost function; dry_run previews", auth="organiser", body=PairingEditIn,
       response=RoundOut, tag=TAG, errors_=("table_started", "conflict", "version_conflict"), roles=())
def edit_round(ctx, eid, n):
    from ..services.pairing_edits import edit_round as edit
    return edit(ctx.deps, ctx.organiser, eid, _int(n), ctx.body)


class TableFound(Out):
    event_id: str
    round: int
    table: int


@route(bp, "/table-codes/{code}", "GET", summary="Find a table from its printed code (bare score.html)",
       response=TableFound, tag=TAG, errors_=("not_found", "rate_limited"))
def find_table(ctx, code):
    """Where a code sits; the phone then opens that table with the code as usual. Unknown codes are rate-limited
    per address like wrong codes at a table."""
    return TableFound(**res.find_table(ctx.deps, code, client=ctx.client))


@route(bp, "/events/{eid}/rounds/{n}/tables/{t}", "GET", summary="One table, for the table-side scoring page",
       auth="table", response=TableView, tag=TAG)
def get_table(ctx, eid, n, t):
    """A phone opens its table here, then follows the table's live JSON (`live`, through the CDN: issue 43); an
    unchanged table answers 304 to its ETag, with no body."""
    import hashlib
    import json as _json
    n, t = _int(n), _int(t)
    from ..services.live_tables import live_path
    view = TableView(**res.scoring_view(ctx.deps, eid, n, t, ctx.principal, ctx.header("x-table-code"), client=ctx.client),
                     live=live_path(eid, n, t)).model_dump(mode="json")
    tag = '"' + hashlib.sha1(_json.dumps(view, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:20] + '"'
    headers = {"ETag": tag, "Cache-Control": "no-cache", "Access-Control-Expose-Headers": "ETag, Retry-After"}
    if (ctx.header("if-none-match") or "").strip() == tag:
        return Response(body="", status_code=304, headers=headers)
    return Response(body=_json.dumps(view, ensure_ascii=False), status_code=200,
                    headers={"Content-Type": "application/json; charset=utf-8", **headers})


@route(bp, "/events/{eid}/rounds/{n}/tables/{t}/result", "PUT", summary="Enter or correct a table's result",
       auth="table", body=ResultIn, response=ResultOut, tag=TAG,
       errors_=("version_conflict", "already_confirmed", "invalid_result", "forbidden", "north_south_enters", "disputed",
             "correction_window_closed", "tie_break_required", "lineup_mismatch", "lineup_missing"),
       query=(("room", {"type": "string", "enum": ["open", "closed", "tie_break"],
                        "description": "Guandan team match: this room's pairs result (集体赛, rules.md §8), or "
                                       "the extra deal's winner of a tied knockout match"}),))
def put_result(ctx, eid, n, t):
    n, t = _int(n), _int(t)
    actor = res.resolve_actor(ctx.deps, eid, n, t, ctx.principal, ctx.header("x-table-code"), client=ctx.client)
    room = ctx.query("room")
    if room is not None:
        from ..services import team_matches
        return team_matches.submit_room(ctx.deps, eid, n, t, room, ctx.body.model_dump(), actor)
    return res.submit_result(ctx.deps, eid, n, t, ctx.body.model_dump(), actor)


class LineupOut(Out):
    table: RoundTable
    late: bool = False
    deadline: datetime | None = None


@route(bp, "/events/{eid}/rounds/{n}/tables/{t}/lineup", "POST", summary="A team's lineup (进场名单) for a team match",
       auth="table", body=LineupIn, response=LineupOut, tag=TAG, errors_=("lineup_closed", "conflict", "forbidden"))
def lineup(ctx, eid, n, t):
    from ..services import team_matches
    n, t = _int(n), _int(t)
    actor = res.resolve_actor(ctx.deps, eid, n, t, ctx.principal, ctx.header("x-table-code"), client=ctx.client)
    return LineupOut(**team_matches.post_lineup(ctx.deps, eid, n, t, ctx.body, actor))


class PreviewOut(Out):
    points: dict
    details: dict
    winner: str | None = None
    running: dict | None = Field(default=None, description="Tractor: games_won, levels (current game), leader, "
                                 "decided, games_to_win — shown while the match is undecided")


@route(bp, "/events/{eid}/rounds/{n}/tables/{t}/preview", "POST", summary="Score a result without saving (running totals)",
       auth="table", body=ResultIn, response=PreviewOut, tag=TAG, errors_=("invalid_result",))
def preview(ctx, eid, n, t):
    n, t = _int(n), _int(t)
    res.resolve_actor(ctx.deps, eid, n, t, ctx.principal, ctx.header("x-table-code"), client=ctx.client)
    return PreviewOut(**res.preview_result(ctx.deps, eid, n, t, ctx.body.model_dump()))


@route(bp, "/events/{eid}/rounds/{n}/tables/{t}/confirm", "POST", summary="Confirm the other side's result",
       auth="table", response=ResultOut, tag=TAG, errors_=("already_confirmed", "forbidden", "disputed", "conflict"),
       query=(("room", {"type": "string", "enum": ["open", "closed", "tie_break"],
                        "description": "Guandan team match: confirm this room (the other team's phone)"}),))
def confirm(ctx, eid, n, t):
    n, t = _int(n), _int(t)
    actor = res.resolve_actor(ctx.deps, eid, n, t, ctx.principal, ctx.header("x-table-code"), client=ctx.client)
    room = ctx.query("room")
    if room is not None:
        from ..services import team_matches
        return team_matches.confirm_room(ctx.deps, eid, n, t, room, actor)
    return res.confirm_result(ctx.deps, eid, n, t, actor)


class DisputeIn(Strict):
    # the referee settles from it: a dispute says what is wrong (issue 39: "异议理由：" came empty)
    reason: str = Field(min_length=1, max_length=300, pattern=r"\S", description="what is wrong, in the players' words")


@route(bp, "/events/{eid}/rounds/{n}/tables/{t}/dispute", "POST", summary="The other side disputes the entered result",
       auth="table", body=DisputeIn, response=ResultOut, tag=TAG, errors_=("forbidden", "conflict", "disputed"),
       query=(("room", {"type": "string", "enum": ["open", "closed", "tie_break"],
                        "description": "Guandan team match: dispute this room (the referee enters it again)"}),))
def dispute(ctx, eid, n, t):
    n, t = _int(n), _int(t)
    actor = res.resolve_actor(ctx.deps, eid, n, t, ctx.principal, ctx.header("x-table-code"), client=ctx.client)
    room = ctx.query("room")
    if room is not None:
        from ..services import team_matches
        return team_matches.dispute_room(ctx.deps, eid, n, t, room, ctx.body.reason[:300], actor)
    return res.dispute_result(ctx.deps, eid, n, t, ctx.body.reason[:300], actor)


@route(bp, "/events/{eid}/rounds/{n}/tables/{t}/forfeit", "POST", summary="Record a forfeit (organiser)",
       auth="organiser", body=ForfeitIn, response=ResultOut, tag=TAG, roles=())
def forfeit(ctx, eid, n, t):
    own_event(ctx.deps, ctx.organiser, eid)
    actor = res.Actor("organiser", ctx.principal.who)
    b = ctx.body
    return res.record_forfeit(ctx.deps, eid, _int(n), _int(t), b.entry_id, b.reason, actor, excused=b.excused,
                              force_majeure=b.force_majeure)


@route(bp, "/events/{eid}/rounds/{n}/close", "POST", summary="Close a round (every table confirmed or forfeit)",
       auth="organiser", response=RoundOut, tag=TAG, errors_=("round_not_complete", "conflict"), roles=())
def close(ctx, eid, n):
    return svc.close_round(ctx.deps, ctx.organiser, eid, _int(n))


@route(bp, "/events/{eid}/rounds/{n}/redraw", "POST", summary="Redraw an unstarted round after a late correction",
       auth="organiser", response=RoundOut, tag=TAG, errors_=("conflict",), roles=())
def redraw(ctx, eid, n):
    return svc.redraw(ctx.deps, ctx.organiser, eid, _int(n))


@route(bp, "/events/{eid}/rounds/{n}/cards", "GET", summary="Printable table cards with QR codes (HTML)",
       auth="organiser", tag=TAG, raw=True)
def cards(ctx, eid, n):
    from ..services.cards import table_cards
    return _html(table_cards(ctx.deps, ctx.organiser, eid, _int(n)))


@route(bp, "/events/{eid}/score-sheet", "GET", summary="A blank score sheet for the event's game (HTML)", tag=TAG, raw=True)
def score_sheet(ctx, eid):
    from ..services.cards import score_sheet as sheet
    return _html(sheet(ctx.deps, eid))


@route(bp, "/events/{eid}/standings", "GET", summary="Standings with the method's tie-break chain (?stage=)",
       auth="organiser", response=StandingsOut, tag=TAG, query=(("stage", {"type": "integer", "minimum": 1, "maximum": 6}),))
def standings(ctx, eid):
    stage = ctx.query("stage")
    return st.standings_for_organiser(ctx.deps, ctx.organiser, eid, _int(stage) - 1 if stage else None)


@route(bp, "/events/{eid}/bonuses", "GET", summary="Dou Dizhu bomb-bonus ledger", auth="organiser",
       response=BonusesOut, tag=TAG)
def bonuses(ctx, eid):
    return st.bonuses(ctx.deps, own_event(ctx.deps, ctx.organiser, eid))


@route(bp, "/events/{eid}/audit", "GET", summary="Every change: who, when, before, after, reason", auth="organiser",
       response=AuditList, tag=TAG)
def audit(ctx, eid):
    own_event(ctx.deps, ctx.organiser, eid)
    return AuditList(audit=res.audit_log(ctx.deps, eid))


@route(bp, "/tournaments/{tid}/publish", "POST", summary="Publish the tournament's pages now", auth="organiser",
       response=PublishOut, tag=TAG)
def publish(ctx, tid):
    from ..services.publishing import publish_latest
    own_tournament(ctx.deps, ctx.organiser, tid)
    # on demand: rewrite every page, waiting a moment for a publish already running
    return PublishOut(**publish_latest(ctx.deps, tid, force=True, wait_seconds=20))


def _query_int(ctx, name: str, default: int | None) -> int | None:
    from .. import errors
    value = ctx.query(name)
    if value is None:
        return default
    if not (value.isascii() and value.isdigit()) or len(value) > 7:   # ranges are the service's to check
        raise errors.InvalidRequest(f"{name}={value!r}: 应为正整数 · not a whole number", {"param": name})
    return int(value)


def _int(value) -> int:
    from .. import errors
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise errors.InvalidRequest(f"{value!r} is not a number") from None
    if number < 1 or number > 100_000:
        raise errors.NotFound("no such round or table")
    return number
