"""The hall (issue 28): the round clock the director runs, and announcements to the board and the table phones.

The clock is published as times (starts_at, ends_at, paused_at), never as a remaining count: every screen works
out what is left from its own clock, so a phone that loses the network, or the static site, keeps counting."""
from __future__ import annotations

from typing import TYPE_CHECKING

from datetime import datetime, timedelta
from functools import lru_cache

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain.events import HallChanged
from ..ids import new_id
from ..models import Organiser
from .principals import who_of
from .rounds import round_ref
from .tournaments import own_event, own_tournament

ACTIONS = ("start", "pause", "resume", "extend")
MAX_ANNOUNCEMENTS = 20   # kept; older ones are removed when a new one is posted


def clock_state(clock: dict | None) -> str:
    if not clock or not clock.get("started"):
        return "scheduled"
    return "paused" if clock.get("paused_at") else "running"


def apply(clock: dict | None, action: str, now: datetime, *, minutes: int | None, duration: int | None) -> dict:
    """The clock after the director's action (pure). `duration`: the round's minutes, when starting it."""
    clock = dict(clock or {})
    state = clock_state(clock)
    if action == "start":
        if state != "scheduled":
            raise errors.ClockState(f"The clock is {state}: it was started already.", {"state": state})
        length = minutes or duration
        clock.update(started=True, starts_at=now.isoformat(), ends_at=(now + timedelta(minutes=length)).isoformat(),
                     extended_minutes=0, paused_at=None)
    elif action == "pause":
        if state != "running":
            raise errors.ClockState(f"The clock is {state}: only a running clock pauses.", {"state": state})
        clock["paused_at"] = now.isoformat()
    elif action == "resume":
        if state != "paused":
            raise errors.ClockState(f"The clock is {state}: only a paused clock resumes.", {"state": state})
        # The time paused is given back: the end moves on by it (the start too, so the length shown stays true)
        held = now - datetime.fromisoformat(clock["paused_at"])
        clock.update(starts_at=(datetime.fromisoformat(clock["starts_at"]) + held).isoformat(),
                     ends_at=(datetime.fromisoformat(clock["ends_at"]) + held).isoformat(), paused_at=None)
    elif action == "extend":
        if state == "scheduled":
            raise errors.ClockState("The clock has not started: start it first.", {"state": state})
        ends = datetime.fromisoformat(clock["ends_at"]) + timedelta(minutes=minutes)
        if ends <= datetime.fromisoformat(clock["starts_at"]):
            raise errors.InvalidRequest("The round would end before it began.",
                                        [{"field": "minutes", "message": "too short"}])
        clock.update(ends_at=ends.isoformat(), extended_minutes=clock.get("extended_minutes", 0) + minutes)
    return clock


def public_clock(eid: str, n: int, clock: dict | None, doc: dict) -> dict:
    """What the feed publishes (api.md v1.2): the director's clock, else the round's scheduled times."""
    if clock and clock.get("started"):
        out = {"event_id": eid, "round": n, "state": clock_state(clock), "starts_at": clock["starts_at"],
               "ends_at": clock["ends_at"], "extended_minutes": clock.get("extended_minutes", 0)}
        if clock.get("paused_at"):
            out["paused_at"] = clock["paused_at"]
        return out
    return {"event_id": eid, "round": n, "state": "scheduled", "starts_at": doc.get("starts_at"),
            "ends_at": doc.get("ends_at"), "extended_minutes": 0}


def run_clock(deps: Deps, organiser: Organiser, eid: str, n: int, action: str, minutes: int | None) -> dict:
    event = own_event(deps, organiser, eid)
    state = deps.repos.rounds.state(eid)
    ref = round_ref(state, n)
    doc, _ = deps.repos.rounds.get_table(eid, ref["stage"], n, 1)
    if doc is None:
        raise errors.NotFound(f"round {n} not found")
    if doc["status"] != "open":
        raise errors.ClockState("The round is closed: its clock no longer runs.", {"state": "closed"})
    if action == "extend" and not minutes:
        raise errors.InvalidRequest("Say by how many minutes.", [{"field": "minutes", "message": "required"}])
    clock = deps.repos.hall.clock(eid, n)
    version = clock["version"] if clock else 0
    duration = _round_minutes(event, doc)
    after = apply(clock, action, deps.clock(), minutes=minutes, duration=duration)
    audit = {"id": new_id(), "at": deps.clock().isoformat(), "who": who_of(organiser), "action": f"clock_{action}",
             "round": n, "after": {k: after.get(k) for k in ("starts_at", "ends_at", "paused_at")}}
    deps.repos.rounds.audited_write(eid, audit, lambda ops: deps.repos.hall.save_clock(eid, n, after, version, extra=ops))
    deps.dispatch([HallChanged(event.tournament_id)])   # the feeds and the board, no event's pages
    return {**public_clock(eid, n, after, doc), "tournament_id": event.tournament_id, "game": event.config.game}


def get_clock(deps: Deps, organiser: Organiser, eid: str, n: int) -> dict:
    event = own_event(deps, organiser, eid)
    ref = round_ref(deps.repos.rounds.state(eid), n)
    doc, _ = deps.repos.rounds.get_table(eid, ref["stage"], n, 1)
    if doc is None:
        raise errors.NotFound(f"round {n} not found")
    return {**public_clock(eid, n, deps.repos.hall.clock(eid, n), doc), "tournament_id": event.tournament_id,
            "game": event.config.game}


def _round_minutes(event, doc: dict) -> int:
    """The scheduled length when the round has times, else the scoring method's minutes (rules.md §7)."""
    if doc.get("starts_at") and doc.get("ends_at"):
        length = datetime.fromisoformat(doc["ends_at"]) - datetime.fromisoformat(doc["starts_at"])
        if length.total_seconds() > 0:
            return int(length.total_seconds() // 60)
    return event.config.stages[doc["stage"]].scoring.minutes


# --------------------------------------------------------------------------- announcements
def announce(deps: Deps, organiser: Organiser, tid: str, text: str) -> dict:
    own_tournament(deps, organiser, tid)
    ann = {"id": new_id(), "text": text, "at": deps.clock().isoformat(), "who": who_of(organiser)}
    deps.repos.hall.add_announcement(tid, ann)
    for old in deps.repos.hall.announcements(tid)[MAX_ANNOUNCEMENTS:]:
        deps.repos.hall.delete_announcement(tid, old["id"])
    deps.dispatch([HallChanged(tid)])
    return public_announcement(ann)


def list_announcements(deps: Deps, organiser: Organiser, tid: str) -> list[dict]:
    own_tournament(deps, organiser, tid)
    return [public_announcement(a) for a in deps.repos.hall.announcements(tid)]


def withdraw(deps: Deps, organiser: Organiser, ann_id: str) -> None:
    tid = deps.repos.hall.announcement_tournament(ann_id)
    if not tid:
        raise errors.NotFound("No such announcement.")
    own_tournament(deps, organiser, tid)
    deps.repos.hall.delete_announcement(tid, ann_id)
    deps.dispatch([HallChanged(tid)])


def public_announcement(ann: dict) -> dict:
    return {"id": ann["id"], "text": ann["text"], "at": ann["at"]}   # never who posted it


# --------------------------------------------------------------------------- what the publisher shows
@lru_cache(maxsize=65536)
def initials(text: str) -> str:
    """Pinyin initials of a name, for find.html ("张三丰" → "zsf"); a Latin name gives its words' first letters
    ("Nguyễn Văn An" → "nva")."""
    _phrases_shared()   # first: pypinyin loaded here, not by the import below
    from pypinyin import Style, lazy_pinyin
    out = []
    for part in lazy_pinyin(text, style=Style.FIRST_LETTER, errors="default"):   # a name's digits and Latin words
        for word in fold.__wrapped__(part).split():   # are parts too: not cached (65,536 kept, ~15 MiB, issue 43)
            out.append(word[:1])
    return "".join(ch for ch in out if ch.isalnum())


@lru_cache(maxsize=1)
def _phrases_shared() -> None:
    """pypinyin's phrase dictionary (47,000 phrases, loaded with the first name's initials) made smaller in place,
    once a process: each phrase's readings are lists of one-syllable lists as parsed from its JSON, each its own
    (~35 MB); equal ones become one list (a few thousand), so each phrase keeps only its outer list (issue 43: the
    publisher's memory). The same readings: pypinyin copies a phrase's lists (deepcopy) before it converts them,
    and assigns, never changes, their items. Where pypinyin is not loaded yet it is loaded so (`_lean_pypinyin`)."""
    import sys
    if "pypinyin.constants" not in sys.modules:
        _lean_pypinyin()
        return
    from pypinyin import constants
    one: dict[tuple, list] = {}
    for readings in constants.PHRASES_DICT.values():
        if type(readings) is list and all(type(r) is list for r in readings):
            readings[:] = [one.setdefault(tuple(r), r) for r in readings]


def _lean_pypinyin() -> None:
    """pypinyin loaded without its phrase dictionary, then the dictionary read phrase by phrase with its readings'
    lists shared as they come and given to pypinyin (`load_phrases_dict`, which trains its word splitter on them as
    its own load does): the whole JSON parsed at once, then shared, left ~25 MiB of freed lists between the kept
    ones, and pypinyin's copies of its two dictionaries ~3 MiB (issue 43: the publisher's peak). The variables
    are pypinyin's own switches, read as it is imported, and set only for that."""
    import json
    import os
    import re
    switches = ("PYPINYIN_NO_PHRASES", "PYPINYIN_NO_DICT_COPY")
    before = {k: os.environ.get(k) for k in switches}
    os.environ.update(dict.fromkeys(switches, "1"))
    try:
        import pypinyin
        from pypinyin import constants
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert not constants.PHRASES_DICT, "pypinyin's phrases were loaded before"
    with open(os.path.join(os.path.dirname(pypinyin.__file__), "phrases_dict.json"), encoding="utf-8") as fp:
        text = fp.read()
    decode, gap = json.JSONDecoder().raw_decode, re.compile(r"[\s,:]*")
    one: dict[tuple, list] = {}
    phrases: dict[str, list] = {}
    at = gap.match(text, text.index("{") + 1).end()
    while text[at] != "}":
        phrase, at = decode(text, at)
        readings, at = decode(text, gap.match(text, at).end())
        phrases[phrase] = [one.setdefault(tuple(r), r) for r in readings]
        at = gap.match(text, at).end()
    del text
    pypinyin.load_phrases_dict(phrases)


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Lower case without diacritics (đ → d), as find.html folds what is typed: every combining mark goes, those of
    chalicelib/marks.py, the one list find.js strips too (not each side's own Unicode) — `combining()` would keep
    the marks of combining class 0 (U+20DD, U+034F)."""
    import unicodedata

    from ..marks import strip_marks
    return strip_marks(unicodedata.normalize("NFD", text.lower().replace("đ", "d")))


def current_round(data: dict) -> dict | None:
    """The round the hall is playing: the open one, else the latest."""
    if not data["rounds"]:
        return None
    return next((r for r in data["rounds"] if r["number"] == data["open_round"]), data["rounds"][-1])


def event_hall(deps: Deps, tid: str, event, data: dict) -> dict:
    """What one event's feed carries of the hall (its clock, the tournament's announcements), as hall_data has it,
    without the board's tables: an event publishing on its own (issue 43) reads only these."""
    r = current_round(data)
    clock = None
    if r and r["status"] == "open":
        clock = public_clock(event.id, r["number"], deps.repos.hall.clocks([(event.id, r["number"])])[0],
                             {"starts_at": r.get("starts_at"), "ends_at": r.get("ends_at")})
    return {"events": [{"id": event.id, "clock": clock}],
            "announcements": [public_announcement(a) for a in deps.repos.hall.announcements(tid)]}


def hall_data(deps: Deps, tid: str, datas: list) -> dict:
    """Each event's current round (the board, find.html), its clock, and the tournament's announcements: read once a
    publish, for every language. The round's tables are the worded rows the event's pages show (the same objects,
    nothing copied: issue 43, at 100,000 entries a dict and a search text a side were ~100 MiB held between
    publishes); a side's club and members are read from the event's entries (`entry_of`), its search text worked
    out where find-my-table needs it (`search_text`): publish/hall_rows.py."""
    rounds = {event.id: current_round(data) for event, data in datas}
    refs = [(eid, r["number"]) for eid, r in rounds.items() if r]
    clocks = dict(zip([eid for eid, _ in refs], deps.repos.hall.clocks(refs), strict=False))
    events = []
    for event, data in datas:
        r = rounds[event.id]
        if not r:
            events.append({"id": event.id, "name": event.config.name, "game": event.config.game, "round": None,
                           "clock": None})
            continue
        events.append({"id": event.id, "name": event.config.name, "game": event.config.game,
                       "round": {"number": r["number"], "status": r["status"], "tables": r["tables"],
                                 "byes": r["byes"]},
                       "entries": data["entries"],
                       # a closed round (the event over, or the next not drawn) has nothing left to count down
                       "clock": public_clock(event.id, r["number"], clocks.get(event.id),
                                             {"starts_at": r.get("starts_at"), "ends_at": r.get("ends_at")})
                       if r["status"] == "open" else None,
                       "standings": data["standings"][:30], "point_names": data["point_names"]})
    return {"events": events, "announcements": [public_announcement(a) for a in deps.repos.hall.announcements(tid)]}
