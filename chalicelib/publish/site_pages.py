"""Writing the published pages (issue 37 item 4: the publisher's writing part): every page of one language from the
pages' data (publish/site_data.py), through a `PageOut` that keeps the manifest's digests and writes only the
pages whose bytes changed, to the sink (publish/sinks.py). What to publish and when is services/publishing.py's."""
from __future__ import annotations

import hashlib
import json
import logging
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import islice
from typing import Any

from markupsafe import Markup

from .. import errors
from .audit_files import write_lanes
from .i18n import LANGS as PAGE_LANGS, prefix as lang_prefix, translator
from .render import TEMPLATES, render, render_bytes
from .find_index import shards_of_keys, texts_of_shards
from .hall_rows import entry_of, find_texts, find_words, search_text, seat_codes
from .site_data import page_name, pager, pages, results_card, round_pages

log = logging.getLogger("cardgames.publish")
LANGS = tuple(PAGE_LANGS)   # zh at /t/, the others at /{lang}/t/ (publish/i18n.py)
ASSETS = ("style.css", "live.js", "hall.css", "hall.js", "find.js")   # no inline script on a page (the CSP forbids it)


@dataclass(frozen=True)
class SiteRun:
    """What one publish renders, the same for every language."""
    tournament: Any
    datas: list          # (event, data) of the events whose pages are rendered
    all_datas: list      # every event's (event, data): every feed is written, also those whose pages were left
    summaries: list      # the tournament page's line per event
    updated: str         # the tournament's local time of the publish
    t_version: str       # the tournament feed's version
    hall: dict           # the board's and find-my-table's data (services/hall.hall_data)
    ev_caches: dict      # the publisher's state per event (rendered fragments are kept there)
    rows: int            # a page's rows (big rounds and standings are in pages)
    site: str            # the site's address (links, QR codes, link cards)
    find_inline: int     # past this many hits find.html searches index shards instead of carrying them

    @property
    def tid(self) -> str:
        return self.tournament.id


@lru_cache(maxsize=1)
def templates_version() -> str:
    """The templates and the catalog as this code carries them (the same in every container of a release)."""
    from .i18n import CATALOG
    h = hashlib.sha1(CATALOG.read_bytes())
    for path in sorted(TEMPLATES.iterdir()):
        h.update(path.read_bytes())
    return h.hexdigest()


# Pages handed to the write pool and not yet written, at most (issue 43: S3's PUTs are slower than the rendering,
# and a cold publish of 100,000 entries queued 300,000 pages' bodies, and a future each, in memory before this)
IN_FLIGHT = 512


class PageOut:
    """One language's pages going out. Only pages whose bytes changed are written: a manifest of content hashes
    per language and tournament (after one result that is a handful of pages, not thousands of S3 PUTs). Writes
    (disk or S3) run beside the rendering: they wait on I/O, rendering on the CPU. Thousands of files to a folder:
    a writer process (publish/sinks.py says why); else a few threads (S3's waits are long)."""

    def __init__(self, sink, lang: str, old_manifest: dict, many: bool, carried: bool = False):
        self.sink, self.lang = sink, lang
        self.old, self.old_inputs = old_manifest.get("pages", {}), old_manifest.get("inputs", {})
        # `carried`: the old manifest is the one this process wrote last for these pages (the pages in the sink),
        # so the entry pages whose inputs did not move need not be visited (`carry_entries`): their lines stand.
        # It holds which of its keys are not entry pages ("_rest"): those are visited every publish.
        self.rest = old_manifest.get("_rest") if carried else None
        self.carrying = False
        self.new: dict[str, str] = {}
        self.new_inputs: dict[str, str] = {}
        self.touched: set[str] = set()   # the keys whose lines may differ from the old manifest's
        self.seen: set[str] = set()      # the keys visited, while carrying
        self.seen_inputs: set[str] = set()
        self.stats: dict = {"files": 0, "written": 0, "bytes": 0, "largest": ("", 0)}
        self.writer = sink.writer() if many and hasattr(sink, "writer") else None
        self.pool = (ThreadPoolExecutor(max_workers=getattr(sink, "THREADS", 8))
                     if self.writer is None and getattr(sink, "parallel", False) else None)
        self.pending: deque = deque()

    def keep_folder(self, folder: str) -> None:
        """An event nothing changed in: its pages stay as they are (their lines carried over)."""
        self.new.update((k, v) for k, v in self.old.items() if k.startswith(folder))
        self.new_inputs.update((k, v) for k, v in self.old_inputs.items() if k.startswith(folder))
        if self.carrying:
            self.seen.update(k for k in self.old if k.startswith(folder))
            self.seen_inputs.update(k for k in self.old_inputs if k.startswith(folder))

    def write(self, key: str, text: str | bytes) -> None:
        body = text if isinstance(text, bytes) else text.encode("utf-8")
        digest = hashlib.sha1(body).hexdigest()
        self.new[key] = digest
        stats = self.stats
        stats["files"] += 1
        stats["bytes"] += len(body)
        if len(body) > stats["largest"][1]:
            stats["largest"] = (key, len(body))
        if self.carrying:
            self.seen.add(key)
        if self.old.get(key) == digest:
            return
        self.touched.add(key)
        stats["written"] += 1
        if self.writer:
            self.writer.write(key, body)
        elif self.pool:
            self.pending.append(self.pool.submit(self.sink.write, key, body))
            if len(self.pending) > IN_FLIGHT:   # the sink is slower than the rendering: wait for the oldest half
                while len(self.pending) > IN_FLIGHT // 2:
                    self.pending.popleft().result()
        else:
            self.sink.write(key, body)

    def unchanged(self, key: str, inputs) -> bool:
        """Pages keyed by their inputs (entry histories: most of the files) are not even rendered again when those
        inputs and the templates are as last time. An entry page's inputs are one digest already: its page's
        digest is worked out again each visit (~2 µs), not held per page and language between publishes (issue 43:
        ~20 MiB at 100,000 entries; a result's publish visits only the entries whose inputs moved)."""
        # repr, not sorted JSON: the inputs are built in a fixed order, and this runs for every entry page
        digest = hashlib.sha1(repr((templates_version(), self.lang, inputs)).encode()).hexdigest()
        self.new_inputs[key] = digest
        if self.carrying:
            self.seen_inputs.add(key)
        if self.old_inputs.get(key) == digest and key in self.old:
            self.new[key] = self.old[key]
            if self.carrying:
                self.seen.add(key)
            self.stats["files"] += 1
            return True
        self.touched.add(key)
        return False

    def can_carry(self) -> bool:
        """Whether entry pages can be left unvisited (`carry_entries`): the old manifest is this process's own."""
        return self.rest is not None

    def carry_entries(self, unvisited: int) -> None:
        """The entry pages not visited in this publish keep their lines (their inputs did not move; `unvisited` of
        them, counted as files). Every other page must be visited: an old page that is not (and is no entry
        page) leaves the manifest, as it would have if every page had been visited."""
        assert self.rest is not None
        if not self.carrying:   # the pages visited so far are seen; every old line stands until visited or gone
            self.carrying = True
            self.seen, self.seen_inputs = set(self.new), set(self.new_inputs)
            self.new, self.new_inputs = {**self.old, **self.new}, {**self.old_inputs, **self.new_inputs}
        self.stats["files"] += unvisited

    def abandon(self) -> None:
        if self.writer:
            self.writer.close(abandon=True)

    def close(self) -> None:
        """Every write through (raises if one failed)."""
        if self.writer:
            self.writer.close()
        if self.pool:
            self.pool.shutdown(wait=True)
        while self.pending:
            self.pending.popleft().result()

    def manifest(self) -> dict:
        """The pages' lines as they now are, with the keys whose lines may differ from the old manifest's
        ("_touched": its parts are worked out again from these, not from a diff of every line) and the keys of
        pages and of inputs that are not entry pages ("_rest")."""
        if self.carrying:   # the old lines of pages not visited that are no entry page: gone
            gone, gone_inputs = self.rest[0] - self.seen, self.rest[1] - self.seen_inputs
            for k in gone:
                self.new.pop(k, None)
            for k in gone_inputs:
                self.new_inputs.pop(k, None)
            self.touched |= gone | gone_inputs
            pages_, inputs_ = self.seen, self.seen_inputs
        else:
            self.touched |= (self.old.keys() - self.new.keys()) | (self.old_inputs.keys() - self.new_inputs.keys())
            pages_, inputs_ = self.new, self.new_inputs
        rest = (frozenset(k for k in pages_ if not is_entry_page(k)),
                frozenset(k for k in inputs_ if not is_entry_page(k)))
        return {"pages": self.new, "inputs": self.new_inputs, "_touched": self.touched, "_rest": rest}


def is_entry_page(key: str) -> bool:
    """An entry's page: most of an event's pages, left unvisited while their inputs stand (PageOut.carry_entries)."""
    return "/entry-" in key and key.endswith(".html")


def share_card(run: SiteRun, prefix: str, out: PageOut | None, event=None) -> dict:
    """The link card of a tournament's (or an event's) pages, and its poster (drawn with the Chinese pages only,
    `out` given, and only when what it shows changed: a result changes no poster)."""
    from ..services import posters
    from .poster import has_font
    tournament, events = run.tournament, [e for e, _ in run.datas]
    folder = f"t/{tournament.id}/" + (f"{event.id}/" if event else "")
    if out is not None:
        key = prefix + (f"{event.id}/" if event else "") + "poster.png"
        poster = posters.event_poster(tournament, event) if event else posters.tournament_poster(tournament, events)
        if not out.unchanged(key, repr(poster)):
            try:
                out.write(key, posters.render_png(poster))
            except errors.Misconfigured:   # no CJK font here: the pages go out without their image, never fail
                log.warning("poster %s not drawn: no CJK font", key)
    site = run.site
    image = f"{site}/{folder}poster.png" if has_font() else None
    if event:
        c = event.config
        description = " · ".join(x for x in (posters.dates(tournament), tournament.venue, posters.kind_text(event),
                                             posters.fee_text(event, tournament.currency)) if x)
        return {"title": f"{c.name} · {tournament.name}", "description": description, "image": image,
                "url": f"{site}/{folder}index.html"}
    return {"title": tournament.name, "description": posters.share_description(tournament, events), "image": image,
            "url": f"{site}/{folder}index.html"}


def other_pages(lang: str, tid: str, page: str) -> list[tuple[str, str]]:
    """The same page in the other languages, for the nav's links."""
    return [(x, f"/{lang_prefix(x)}t/{tid}/{page}") for x in LANGS if x != lang]


def render_tournament_language(lang: str, out: PageOut, run: SiteRun) -> None:
    """The tournament-wide pages of one language — the index, the board, find-my-table, the day's prizes — (and,
    with Chinese, the tournament's feed that every language's pages poll), from every event's data (`run.datas`).
    Each event's own pages are render_event_language's: events publish side by side (issue 43)."""
    tournament, tid = run.tournament, run.tid
    prefix = f"{lang_prefix(lang)}t/{tid}/"
    for asset in ASSETS:
        out.write(prefix + asset, (TEMPLATES / asset).read_text(encoding="utf-8"))
    other = partial(other_pages, lang, tid)
    posters_out = out if lang == "zh" else None
    share = results_card(share_card(run, prefix, posters_out), [d for _, d in run.datas], lang)
    base = {"tournament": tournament, "updated": run.updated, "share": share}
    out.write(prefix + "index.html", render("tournament.html", lang, **base, root="", css="style.css",
                                            events=run.summaries, other_lang=other("index.html"),
                                            feed_url="feed.json", feed_version=run.t_version))
    render_hall(lang, out, run, prefix, base)
    # One printable page with every event's prizes, for the closing ceremony (seed 003: one ceremony a day)
    day_prizes = [d["prizes"] for _, d in run.datas if d["prizes"]]
    out.write(prefix + "prizes.html", render("prizes.html", lang, **base, root="", css="style.css",
                                             events_prizes=day_prizes, currency=tournament.currency,
                                             other_lang=other("prizes.html"), feed_url="feed.json",
                                             feed_version=run.t_version))
    if lang == "zh":
        _write_tournament_feed(out, run)


def render_event_language(lang: str, out: PageOut, run: SiteRun, event, data: dict | None) -> None:
    """One event's pages of one language (`data` None: only its feed, the clock or announcements moved) and, with
    Chinese, its feed in every language. Its entry pages carry the event's own link card: they are its pages."""
    prefix = f"{lang_prefix(lang)}t/{run.tid}/"
    if data is not None:
        share = results_card(share_card(run, prefix, None, event), [data], lang)
        base = {"tournament": run.tournament, "updated": run.updated, "share": share}
        _EventPages(lang, out, run, event, data, base, prefix).render()
    if lang == "zh":
        for ev, ev_data in run.all_datas:
            if ev.id == event.id:
                _write_event_feed(out, run, ev, ev_data)


class _EventPages:
    """One event's pages in one language: its page, standings, rounds, corrections, prizes, bonuses, audit chain
    and entry pages."""

    def __init__(self, lang: str, out: PageOut, run: SiteRun, event, data: dict, base: dict, prefix: str):
        self.lang, self.out, self.run, self.event, self.data = lang, out, run, event, data
        self.ep_rel = f"{event.id}/"
        self.ep = prefix + self.ep_rel
        self.base = base
        self.other = partial(other_pages, lang, run.tid)
        share = results_card(share_card(run, prefix, out if lang == "zh" else None, event), [data], lang)
        self.ctx = {**base, **data, "root": "../", "css": "../style.css", "feed_url": "feed.json",
                    "feed_version": data["version"], "share": share}
        self.t = translator(lang)
        self.round_pages = {r["number"]: round_pages(r, run.rows, self.t) for r in data["rounds"]}
        cache = run.ev_caches.setdefault(event.id, {})
        self.fragments = cache.setdefault("fragments", {})
        tables_of = cache.setdefault("round_tables", {}).get(lang)
        if tables_of is None:   # the round pages' tables in this language, each row kept while its table is the same
            from .round_tables import RoundTables
            tables_of = cache["round_tables"][lang] = RoundTables(lang)
        self.tables_of = tables_of

    def page(self, name: str, template: str, **kw) -> None:
        self.out.write(self.ep + name, render(template, self.lang, **self.ctx, **kw,
                                              other_lang=self.other(self.ep_rel + name)))

    def round_html(self, r: dict, k: int = 0):
        """A page of a round's tables, kept while its inputs stay the same: the event page shows page 1 of the
        latest round, and after a result on another page that page need not be rendered again."""
        digest = self.data["page_inputs"]["rounds"][r["number"]][k]
        hit = self.fragments.get((self.lang, r["number"], k))
        if hit is None or hit[0] != digest:
            # results come in to the latest round: its rows are kept, where it is on one page (a paged round's
            # result renders its one page of rows again; keeping 50,000 rows in three languages held ~150 MB)
            slices = self.round_pages[r["number"]][1]
            latest = r is self.data["rounds"][-1]
            hit = (digest, Markup(self.tables_of.render(slices[k], keep=latest and len(slices) == 1)))
            if latest and k == 0:   # only what the event page shows is worth keeping
                self.fragments[(self.lang, r["number"], k)] = hit
        return hit[1]

    def render(self) -> None:
        data, out, ep = self.data, self.out, self.ep
        last = data["rounds"][-1] if data["rounds"] else None
        self.page("index.html", "event.html", round_html=self.round_html(last) if last else "",
                  pager=pager(self.round_pages[last["number"]][0], 1) if last else None)
        self.standings()
        if self.lang == "zh":   # the audit chain's files: data, in no language (docs/audit-chain.md)
            (write_lanes if "chains" in data["chain"] else write_chain)(out, self.run.tid, self.event.id, ep, data["chain"])
        if not out.unchanged(ep + "corrections.html", data["page_inputs"]["corrections"]):
            self.page("corrections.html", "corrections.html")
        if data["prizes"]:
            self.page("prizes.html", "prizes.html", events_prizes=[data["prizes"]],
                      currency=self.run.tournament.currency)
        if data["bonuses"] is not None:
            self.page("bonuses.html", "bonuses.html", currency=self.run.tournament.currency)
        self.rounds()
        self.entries()

    def standings(self) -> None:
        data, t_ = self.data, self.t
        standings_pages = pages(data["standings"], self.run.rows)
        standings_table = None   # its rows written without the template engine (publish/standings_table.py)
        s_pager = [{"n": i, "href": page_name("standings", i),
                    "label": t_("ranks_from_to", a=chunk[0]["rank"] or "", b=next((r["rank"] for r in reversed(chunk)
                                                                                   if r["rank"]), "")) if chunk else ""}
                   for i, chunk in enumerate(standings_pages, start=1)]
        for i, chunk in enumerate(standings_pages, start=1):
            name = page_name("standings", i)
            # a big field's standings: only the pages whose rows moved are rendered again
            if len(standings_pages) > 1 and self.out.unchanged(self.ep + name, data["page_inputs"]["standings"][i - 1]):
                continue
            if standings_table is None:
                from .standings_table import StandingsTable
                standings_table = StandingsTable(self.lang)
            self.out.write(self.ep + name, render(
                "standings.html", self.lang, **{**self.ctx, "standings": chunk}, pager=pager(s_pager, i),
                table_html=Markup(standings_table.render(chunk, data, self.run.tournament.currency)),
                other_lang=self.other(self.ep_rel + name)))

    def rounds(self) -> None:
        for r in self.data["rounds"]:
            links, slices = self.round_pages[r["number"]]
            for k in range(len(slices)):
                name = page_name(f"round-{r['number']}", k + 1)
                # finished rounds do not change; in a big round, one result changes the one page holding its table
                if self.out.unchanged(self.ep + name, self.data["page_inputs"]["rounds"][r["number"]][k]):
                    continue
                self.page(name, "round.html", r=r, round_html=self.round_html(r, k), pager=pager(links, k + 1))

    def entries(self) -> None:
        """Entry pages get a small context: they are most of the files."""
        data = self.data
        chunks = data["places_chunks"]
        small = {**self.base, "updated": None, "root": "../", "css": "../style.css", "feed_url": "feed.json",
                 "feed_version": data["version"], "event": data["event"], "places_chunks": chunks}
        entry_pages = None   # the frame is rendered once, when the first entry page is not as it was
        moved, made = self.entries_moved()
        if moved is not None:   # the others' pages stand as this process last wrote them (not visited)
            self.out.carry_entries(len(data["entries"]) - len(moved))
        for eid_ in data["entries"] if moved is None else moved:
            key = self.ep + f"entry-{eid_}.html"
            if self.out.unchanged(key, data["entry_inputs"][eid_]):
                continue
            if entry_pages is None:
                from .entry_page import EntryPages
                entry_pages = EntryPages(self.lang, small, self.ep_rel, self.other)
            self.out.write(key, entry_pages.render(data["entries"][eid_], data["histories"].get(eid_, []), eid_))
        self.run.ev_caches.setdefault(self.event.id, {}).setdefault("entries_rendered", {})[self.lang] = made
        self.place_files(chunks)

    def entries_moved(self) -> tuple[set | None, object]:
        """(the entries whose page inputs moved since this language's entry pages were last visited here, or None:
        visit every one; the inputs' generation visited now). Only when the manifest going out carries this
        process's own last lines (PageOut.can_carry) and the entries' inputs were worked out from the ones then
        (site_data.entry_pages_data's record: its `since` is the generation this language last visited)."""
        cache = self.run.ev_caches.get(self.event.id) or {}
        record = cache.get("entry_pages")
        if record is None or record.get("public") is not self.data["entries"]:
            return None, None
        last = (cache.get("entries_rendered") or {}).get(self.lang)
        if not self.out.can_carry() or record.get("moved") is None or last is None or record.get("since") is not last:
            return None, record.get("gen")
        return record["moved"], record["gen"]

    def place_files(self, chunks: int) -> None:
        """The entry pages' place charts, `chunks` files of about a hundred entries each (publish/place_files.py):
        a close rewrites these, not the pages. A file is drawn again only when its entries' places moved."""
        from .charts import place_chart
        from .place_files import chunk_body, chunk_inputs, chunk_members
        places, entries = self.data["places"], self.data["entries"]
        cache = self.run.ev_caches.setdefault(self.event.id, {})
        hit = cache.get("place_chunks")   # the same places and entries (a result's publish): the same inputs
        if hit is None or hit[0] is not places or hit[1] is not entries or hit[2] != chunks:
            members_of = chunk_members(entries, chunks)
            hit = cache["place_chunks"] = (places, entries, chunks, members_of,
                                           [chunk_inputs(places, m) for m in members_of])
        for k, (members, inputs) in enumerate(zip(hit[3], hit[4], strict=True), start=1):
            key = f"{self.ep}places-{k}.json"
            if self.out.unchanged(key, inputs):
                continue
            drawn = {e: str(chart) for e in members if (chart := place_chart(places, e, self.t))}
            self.out.write(key, chunk_body(drawn))


def _write_event_feed(out: PageOut, run: SiteRun, event, data: dict) -> None:
    """An event's feed (its version, clock, rounds and top ten, the announcements), beside every language's
    pages of the event (written with the Chinese ones)."""
    hall = run.hall
    ev_hall = next(h for h in hall["events"] if h["id"] == event.id)
    feed = {"version": data["version"], "updated": run.updated, "event_id": event.id,
            "name": event.config.name, "game": event.config.game, "clock": ev_hall["clock"],
            "announcements": hall["announcements"],
            "rounds": [{"number": r["number"], "status": r["status"]} for r in data["rounds"]],
            "open_round": data["open_round"],
            "top": list(islice(({"rank": r["rank"], "name": r["name"], "points": r["points"]}
                                 for r in data["standings"] if r["rank"] is not None), 10))}
    for x in LANGS:   # every language's pages poll the feed beside them
        out.write(f"{lang_prefix(x)}t/{run.tid}/{event.id}/feed.json", json.dumps(feed, ensure_ascii=False))


def _write_tournament_feed(out: PageOut, run: SiteRun) -> None:
    """The tournament's feed, for every language's tournament-wide pages (written with the Chinese ones). Its
    events' versions are as of the tournament-wide pages' last publish (each event's own feed has its latest)."""
    hall = run.hall
    tfeed = json.dumps({"version": run.t_version, "hall_version": hall["version"], "updated": run.updated,
                        "events": [{"id": s["id"], "version": s["version"], "name": h["name"], "game": h["game"],
                                    "clock": h["clock"]} for s, h in zip(run.summaries, hall["events"], strict=True)],
                        "announcements": hall["announcements"]}, ensure_ascii=False)
    for x in LANGS:
        out.write(f"{lang_prefix(x)}t/{run.tid}/feed.json", tfeed)


def write_chain(out: PageOut, tid: str, eid: str, ep: str, chain: dict) -> None:
    """audit.json (what the chain holds, the segment files, and the records past the last full segment) and the full
    segments audit-<k>.json of SEGMENT records each: a full segment never changes again, so it is not even rendered
    again (its last hash stands for everything in it). Records are spliced in as stored (JSON text), not re-encoded."""
    from ..auditchain import FORMAT, SEGMENT, genesis
    entries = chain["entries"]
    full = len(entries) // SEGMENT

    def with_records(head: dict, records: list[str]) -> str:
        return json.dumps(head, ensure_ascii=False, separators=(",", ":"))[:-1] + ',"records":[' + ",".join(records) + "]}"
    segments = []
    for k in range(full):
        part = entries[k * SEGMENT:(k + 1) * SEGMENT]
        name, last_hash = f"audit-{k + 1}.json", json.loads(part[-1])["hash"]
        if not out.unchanged(ep + name, last_hash):
            out.write(ep + name, with_records({"format": FORMAT, "event_id": eid, "first": k * SEGMENT + 1}, part))
        segments.append({"href": name, "first": k * SEGMENT + 1, "last": (k + 1) * SEGMENT, "last_hash": last_hash})
    if out.unchanged(ep + "audit.json", f"{chain['count']}:{chain['head']}"):
        return
    out.write(ep + "audit.json", with_records({"format": FORMAT, "hash": "sha256", "tournament_id": tid,
                                               "event_id": eid, "genesis": genesis(eid), "count": chain["count"],
                                               "head": chain["head"], "segments": segments},
                                              entries[full * SEGMENT:]))


def render_hall(lang: str, out: PageOut, run: SiteRun, prefix: str, base: dict) -> None:
    """The projector board and find-my-table (issue 28): the tournament's current rounds, in every language.
    Each is rendered again only when what it shows changed (a big round's board is thousands of rows). Past
    publish_find_inline entries, find.html carries no hits but searches the index's shards (publish/find_index.py):
    one set for every language, written with the Chinese pages, each shard only when its rows changed."""
    from .qr import qr_svg
    hall, other = run.hall, partial(other_pages, lang, run.tid)
    find_url = f"{run.site}/{prefix}find.html"
    ctx = {**base, "root": "", "css": "style.css", "feed_url": "feed.json", "feed_version": run.t_version,
           "hall": hall, "entry_of": entry_of, "search_text": search_text}
    if not out.unchanged(prefix + "hall.html", [hall["version"], hall["announcements"],
                                                [ev["clock"] for ev in hall["events"]], find_url, base["share"]]):
        out.write(prefix + "hall.html", render_bytes("hall.html", lang, **{**ctx, "feed_version": hall["version"]},
                                               find_qr=qr_svg(find_url), find_url=find_url,
                                               other_lang=other("hall.html")))
    hits = sum(len(s["sides"]) for ev in hall["events"] if ev["round"] for s in ev["round"]["tables"]) + \
        sum(len(ev["round"]["byes"]) for ev in hall["events"] if ev["round"])
    big = hits > run.find_inline
    folder = f"t/{run.tid}/find/"   # one set for every language (the rows are worded by the page)
    kept_page = out.unchanged(prefix + "find.html", [hall["find_inputs"], big, base["share"]])
    # the shards move only with who sits where (a close's new leaders move the page's link card, not them)
    kept_shards = not big or lang != "zh" or _find_shards_kept(out, folder, hall["find_inputs"])
    if kept_page and kept_shards:
        return
    index = None
    if big:
        if not kept_shards:   # the rows' JSON and keys, the shards, written and let go (not held for the others)
            keys, texts = find_texts(hall, hall.pop("texts", None))
            parts = shards_of_keys(keys)
            del keys
            _count_kept(hall["find_inputs"], len(parts))
            for k, text in enumerate(texts_of_shards(texts, parts)):
                out.write(f"{folder}{k}.json", text)   # written only where its bytes changed (the manifest)
            del texts, parts
        count = _FIND_COUNTS.get(hall["find_inputs"]) or _shard_count(hall)
        if hall.get("codes") is None:
            hall["codes"] = seat_codes(hall)
        index = {"base": "../" * prefix.count("/") + folder, "count": count, "v": hall["find_inputs"][:12],
                 **find_words(lang, hall, hall["codes"])}
    out.write(prefix + "find.html", render("find.html", lang, **ctx, find_index=index and json.dumps(
        index, ensure_ascii=False, separators=(",", ":")), other_lang=other("find.html")))


# The shard count of each seating published here (by its digest: the same seating, the same count, in any app or
# container), so a page worded again (a close's new leaders) does not work the shards out again (~10 s of CPU at
# 100,000 entries). A few seatings: a process publishes a few tournaments.
_FIND_COUNTS: dict[str, int] = {}


def _find_shards_kept(out: PageOut, folder: str, inputs) -> bool:
    """The index shards as last published (who sits where did not move): their manifest lines carried over."""
    if not out.unchanged(folder + "0.json", inputs):
        return False
    out.keep_folder(folder)
    return True


def _count_kept(inputs: str, count: int) -> None:
    while len(_FIND_COUNTS) >= 64:
        _FIND_COUNTS.pop(next(iter(_FIND_COUNTS)))
    _FIND_COUNTS[inputs] = count


def _shard_count(hall: dict) -> int:
    """The shard count of a seating not published by this process (another language's page first): worked out."""
    keys, texts = find_texts(hall, hall.pop("texts", None))
    del texts
    count = len(shards_of_keys(keys))
    _count_kept(hall["find_inputs"], count)
    return count
