"""The retention sweep (issue 41 item 4): a finished tournament's participants' contact data — phones, e-mails,
WeChat openids, the outbox's addresses — is erased once the tournament has ended more than its organiser's
`retention_days` ago (default 180). Names, clubs and results stay: the published pages are not touched.

Run by the hold sweeper's schedule (api/jobs.py: every 5 minutes on AWS, scripts/dev.py's loop locally). It is
paged (PAGE records a read) and bounded per run (`budget` writes): a tournament of 10,000 entries is finished over
a few runs, each re-reading only to skip what is already erased, so a run cut short loses nothing and a record
erased twice is written once. A tournament leaves the sweep's index only when all of it is erased.

An erased entry or registration is nobody's any more: its items in the phones' "我的" index go in the same
transaction (it leaves "我的" and the export: anonymous, as on the published pages). The player's own record (its
phone, name, e-mail, WeChat openid) stays while the phone still holds anything else in the index — another
tournament, finished or not, not yet due — and goes with the last of them (the phone signs in again as new). Progress is
logged by tournament and event ids and counts: never a name, phone or address."""
from __future__ import annotations

import logging
import time
from datetime import UTC, timedelta
from zoneinfo import ZoneInfo
from typing import TYPE_CHECKING

from .. import errors
from ..domain.contacts import erase_contacts, erase_on
from ..installation import phone_hash
from ..messages.record import Message
from ..models import Entry

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps

log = logging.getLogger("cardgames.retention")

PAGE = 100
BUDGET = 2_000          # writes a run: 12–21 s on the embedded store (bench/retention.py)
SECONDS = 60.0          # and at most this long: the sweeper's Lambda has 120 s (infra/stack.py), holds first


class _Spent(Exception):
    """The run's budget is used up: the rest is for the next run."""


class _Run:
    def __init__(self, deps: Deps, budget: int, seconds: float):
        self.deps, self.left = deps, budget
        self.until = time.monotonic() + seconds
        self.counts = {"entries": 0, "registrations": 0, "messages": 0, "players": 0}
        self.missed = False   # a record changed under the sweep: its tournament stays in the index for the next run

    def spend(self, kind: str) -> None:
        if self.left <= 0 or time.monotonic() > self.until:
            raise _Spent
        self.left -= 1
        self.counts[kind] += 1

    def unlinked(self, phones: list[str | None]) -> None:
        """These phones lost an entry or registration to the sweep: a phone left holding nothing at all loses its
        player record too (phone, name, e-mail, WeChat openid); one still holding something elsewhere keeps it.
        Not charged to the budget: a run stopped between an entry and this check would never come back to it
        (the entry, erased, is skipped next time); at most one read and one write per phone erased."""
        for h in sorted({phone_hash(p) for p in phones if p}):
            if self.deps.repos.players.drop_if_unheld(h):
                self.counts["players"] += 1


def sweep_contacts(deps: Deps, budget: int = BUDGET, seconds: float = SECONDS) -> dict:
    """Erases what is due; answers counts: tournaments finished, records erased, and whether work is left."""
    # erase_on is a date where the tournament is played: the index is asked with the date at UTC+14 (the first
    # place a day begins), and each tournament found is checked against its own zone's date
    today = (deps.clock().astimezone(UTC) + timedelta(hours=14)).date().isoformat()
    run = _Run(deps, budget, seconds)
    finished, left = 0, False
    for tid in deps.repos.retention.due(today):
        try:
            if _erase_tournament(run, tid):
                finished += 1
        except _Spent:
            left = True
            log.info("retention: tournament %s: budget spent, continued next run (%s)", tid, run.counts)
            break
    return {"tournaments": finished, **run.counts, "more": left}


def _erase_tournament(run: _Run, tid: str) -> bool:
    deps = run.deps
    tournament, events = deps.repos.tournaments.get_with_events(tid)
    if tournament is None or tournament.contacts_erased_at is not None:
        return False
    local_today = deps.clock().astimezone(ZoneInfo(tournament.timezone)).date()
    if local_today < erase_on(tournament.ends_on, tournament.retention_days):
        return False                      # due already east of here, not yet where it was played
    run.missed = False
    for event in sorted(events, key=lambda e: e.id):
        _erase_event(run, event.id, tid)
    _erase_messages(run, tid)
    if run.missed:
        return False
    erased = tournament.model_copy(update={"contacts_erased_at": deps.clock(), "version": tournament.version + 1})
    try:
        deps.repos.tournaments.update(erased, tournament.version)   # leaves the RETENTION index
    except errors.VersionConflict:
        return False   # edited meanwhile (its dates or retention may have moved): the next run decides again
    log.info("retention: tournament %s: contact data erased (%s so far this run)", tid, run.counts)
    return True


def _erase_event(run: _Run, eid: str, tid: str) -> None:
    repo = run.deps.repos.retention
    after, pages, registrations = None, 0, set()
    while True:
        entries, after = repo.entries_page(eid, after, PAGE)
        for entry in entries:
            if entry.registration_id:
                registrations.add(entry.registration_id)
            erased = _erased_entry(entry)
            if erased is not None:
                run.spend("entries")
                try:
                    repo.erase_entry(entry, erased)
                except errors.VersionConflict:
                    run.missed = True   # changed meanwhile: read again next run
                    continue
                run.unlinked([m.phone for m in entry.members])
        pages += 1
        if pages % 10 == 0:
            log.info("retention: tournament %s event %s: %d pages read", tid, eid, pages)
        if after is None:
            break
    for reg_id in sorted(registrations):
        record = repo.registration(reg_id)
        if record and record.get("contact") and erase_contacts(record["contact"]) != record["contact"]:
            run.spend("registrations")
            try:
                repo.erase_registration(reg_id, record["contact"], erase_contacts(record["contact"]))
            except errors.NotFound:
                continue
            run.unlinked([record["contact"].get("phone")])


def _erased_entry(entry: Entry) -> Entry | None:
    """The entry without contact data and one version on, or None when it holds none."""
    raw = entry.model_dump(mode="json")
    blank = erase_contacts(raw)
    if blank == raw:
        return None
    return Entry.model_validate(blank | {"version": entry.version + 1})


def _erase_messages(run: _Run, tid: str) -> None:
    repo = run.deps.repos.retention
    after = None
    while True:
        messages, after = repo.messages_page(tid, after, PAGE)
        for m in messages:
            blank = erase_contacts(m.model_dump(mode="json"))
            if blank != m.model_dump(mode="json"):
                run.spend("messages")
                try:
                    repo.erase_message(Message.model_validate(blank))
                except errors.NotFound:
                    pass
        if after is None:
            return
