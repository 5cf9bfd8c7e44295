"""What the board (hall.html) and find-my-table (find.html, its index shards) are built from: each event's current
round as services/hall.hall_data gives it — the worded rows of the event's pages, the entries beside them — read
side by side as the pages go out, nothing copied a side (issue 43: the publisher's memory at 100,000 entries)."""
from __future__ import annotations

import hashlib
import json

from .i18n import translator
from .render import seats_text

_NO_ENTRY: dict = {}


def entry_of(ev: dict, side) -> dict:
    """What the board and find-my-table show of a side's entry (its club and members), from the event's entries."""
    return ev["entries"].get(side["entry_id"]) or _NO_ENTRY


def search_text(ev: dict, side) -> str:
    """What find.js matches a side by (`q`): its name and members folded, then their initials. Past their caches
    (`__wrapped__`): a seating's texts are worked out once a publisher process (draw_key's memo), so a name meets
    them once — at 100,000 entries 300,000 names went through, none a second time, and the caches held 65,536
    each (~25 MiB)."""
    from ..services.hall import fold as cached_fold, initials as cached_initials
    fold, initials = cached_fold.__wrapped__, cached_initials.__wrapped__
    members = entry_of(ev, side).get("members", [])
    name = side["name"]
    return "|".join([fold(name), *[fold(m) for m in members], initials(name), *[initials(m) for m in members]])


def draw_key(ev: dict, memo: dict, texts: dict | None = None) -> bytes:
    """The digest of (event id, name, round number, [each table's sides], [the byes]): who sits where, not the
    results. Each table's digest is kept while its draw and the entries are the same (a result moves a table's
    status only): its digest, not its repr (~0.4 KB a table held between publishes, and the whole round's text
    joined each publish: ~30 MiB and more at 100,000 entries, issue 43). `texts`: the sides' search texts worked
    out here, by (event id, table number), for find-my-table's rows of this publish (worked out once, not twice)."""
    r = ev["round"]
    if not r:
        return hashlib.sha1(repr((ev["id"], ev["name"], None)).encode()).digest()
    kept = memo.get(ev["id"])
    if kept is None or kept[0] is not ev["entries"]:   # a side's club, members and search text are the entries'
        kept = memo[ev["id"]] = (ev["entries"], {})
    whole = hashlib.sha1(repr((ev["id"], ev["name"], r["number"])).encode())
    for t in r["tables"]:
        hit = kept[1].get(t["number"])
        if hit is None or hit[0] is not t["sides"]:
            qs = [search_text(ev, s) for s in t["sides"]]
            if texts is not None:
                texts[(ev["id"], t["number"])] = qs
            hit = kept[1][t["number"]] = (t["sides"], hashlib.sha1(repr((t["number"], [
                (s["entry_id"], s["name"], s["seats"], entry_of(ev, s).get("club", ""),
                 entry_of(ev, s).get("members", []), q) for s, q in zip(t["sides"], qs, strict=True)])).encode()
                ).digest())
        whole.update(hit[1])
    whole.update(repr([(b["entry_id"], b["name"], entry_of(ev, b).get("club", ""), entry_of(ev, b).get("members", []),
                        search_text(ev, b)) for b in r["byes"]]).encode())
    return whole.digest()


def _rows(hall: dict):
    """Each side of every event's current round, in the board's order: (event index, the event, table number (0 for
    a bye), the side, its place at the table, its row's place in the round (for its page), the round's rows)."""
    for e, ev in enumerate(hall["events"]):
        r = ev["round"]
        if not r:
            continue
        total = len(r["tables"]) + len(r["byes"])
        for i, tb in enumerate(r["tables"]):
            for k, s in enumerate(tb["sides"]):
                yield e, ev, tb["number"], s, k, i, total
        for j, b in enumerate(r["byes"]):
            yield e, ev, 0, b, 0, len(r["tables"]) + j, total


def find_rows(hall: dict, texts: dict | None = None):
    """find-my-table's rows for a big field, one at a time, the same in every language (issue 43: one set of index
    shards, not three): [keys, name, members, event, table, seats, link]; `event` is its index in hall["events"],
    `table` 0 for a bye, `seats` a key of find_words' "seats". The link is the round's page that holds the table (big
    rounds are in pages), relative to the tournament's folder of any language. `texts`: search texts draw_key
    worked out in this publish (by event and table), used rather than worked out again."""
    from .site_data import page_name
    texts = texts or {}
    links: dict[tuple, str] = {}   # one string a page of the round, one a seat code: not one a row
    codes: dict[tuple, str] = {}
    for e, ev, number, s, k, i, total in _rows(hall):
        r, size = ev["round"], hall["pages_of"][ev["id"]]
        page = i // size + 1 if total > size else 0
        link = links.get((ev["id"], page))
        if link is None:
            link = links[(ev["id"], page)] = f"{ev['id']}/" + (page_name(f"round-{r['number']}", page) if page
                                                               else f"round-{r['number']}.html")
        seats = tuple(s["seats"]) if number else ()
        code = codes.get(seats)
        if code is None:
            code = codes[seats] = ",".join(map(str, seats))
        known = texts.get((ev["id"], number)) if number else None
        q = known[k] if known is not None else search_text(ev, s)
        yield [q, s["name"], entry_of(ev, s).get("members", []), e, number, code, link]


def find_hits(hall: dict) -> list[list]:
    """Every row of find_rows (tests, benches: the publisher goes through them one at a time)."""
    return list(find_rows(hall))


def find_texts(hall: dict, texts: dict | None = None) -> tuple[list[str], list[bytes]]:
    """The rows as find.js reads them from a shard (their JSON, UTF-8: a row's text as a string is two bytes a
    character, its ids and link too, once it holds a Chinese name) and their keys joined (for the index's grams,
    find_index.shards_of_keys): not the rows themselves, nor their keys as lists (at 100,000 entries ~20 and ~45
    MiB)."""
    from .find_index import joined_keys
    keys, out = [], []
    for row in find_rows(hall, texts):
        keys.append(joined_keys(row[0]))
        out.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode())   # about half the size
    return keys, out


def seat_codes(hall: dict) -> list[str]:
    """The seat codes find_rows' rows carry (find_words words each), without making the rows."""
    found = {tuple(s["seats"]) for _, _, number, s, _, _, _ in _rows(hall) if number}
    return sorted(c for c in {",".join(map(str, seats)) for seats in found} if c)


def find_words(lang: str, hall: dict, codes: list[str]) -> dict:
    """What find.js words find_rows' rows with, in the page's language: each event's "event · round n", the table
    and bye words, the members' separator and each seat code's words."""
    t = translator(lang)
    return {"where": [f"{ev['name']} · {t('round', n=ev['round']['number'])}" if ev["round"] else ""
                      for ev in hall["events"]],
            "table": t("table_n", n="{n}"), "bye": t("bye"), "sep": t("list_sep"),
            "seats": {c: f"{t('seat')} {seats_text(c.split(','), lang)}" for c in codes}}
