"""Issue 43: a big field's find-my-table searches small index shards (publish/find_index.py) in Chromium. find.js
folds what is typed and hashes its first characters as the publisher did, so typing a name finds exactly what a
brute-force substring search over every entry of the round finds — with Chinese names, Vietnamese ones typed with
their diacritics and capitals, Latin ones, pinyin initials and a name with a character outside the BMP."""
from __future__ import annotations

import html
import json
import random
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chalicelib.config import get_settings
from chalicelib.publish import site_pages
from chalicelib.publish.find_index import fnv1a
from chalicelib.services import publishing, results, rounds
from chalicelib.services.hall import fold, initials
from playwright.sync_api import expect

from ..bigday import results_for_round, seed_event

ZH = "王李张刘陈杨黄赵吴周"
GIVEN = "伟芳娜秀英敏静丽强磊军洋"
VI = [("Nguyễn", 6), ("Trần", 2), ("Lê", 1), ("Đặng", 1)]
VI_REST = ["Văn An", "Thị Bích", "Hoàng Đức", "Minh Tuấn", "Ngọc Hà", "Văn Anh", "Thu Hương"]
LATIN = ["John Smith", "María José", "Zoë Brown", "Ahmed Khan", "Chloé Dubois"]
ENTRIES = 300


def _names(seed: int = 3):
    rng = random.Random(seed)

    def one(i):
        x = i % 10
        if x < 5:
            return rng.choice(ZH) + rng.choice(GIVEN) + rng.choice(GIVEN + "")
        if x < 8:
            sur = rng.choices([s for s, _ in VI], [w for _, w in VI])[0]
            return f"{sur} {rng.choice(VI_REST)}"
        return rng.choice(LATIN)
    out = []
    for i in range(ENTRIES):
        members = [one(i), one(i + rng.randrange(10))]
        if i in (7, 150):
            members[0] = "陈𠮷" if i == 7 else "𠮷𡈼明"   # 𠮷 (U+20BB7), 𡈼: outside the BMP, one character each
        out.append((members[0] + ("队" if "\u4e00" <= members[0][0] <= "\u9fff" else " team"), members))
    return out


def _typed(text: str) -> str:
    """What find.js makes of typed text: lower case, no diacritics (đ too), no spaces."""
    return re.sub(r"\s", "", fold(text))


def test_typing_finds_what_a_search_of_every_row_finds(store, stack, browser, monkeypatch):
    monkeypatch.setattr(get_settings(), "publish_find_inline", 4)
    names = _names()
    clock = lambda: datetime(2026, 12, 12, 2, tzinfo=UTC)  # noqa: E731
    t, ev, org = seed_event(store.repos, clock, ENTRIES, named=names.__getitem__)
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)
    publishing.publish_tournament(store, t.id, force=True)
    site = Path(stack["publish_dir"])
    page_html = (site / f"t/{t.id}/find.html").read_text()
    index = json.loads(html.unescape(re.search(r'data-index="([^"]+)"', page_html).group(1)))
    assert 5 <= index["count"] <= 40 and not (site / f"t/{t.id}/find.json").exists()
    assert not (site / f"en/t/{t.id}/find").exists()                # one set of shards for every language
    shards = [json.loads((site / f"t/{t.id}/find/{k}.json").read_text()) for k in range(index["count"])]
    assert any(s["heavy"] for s in shards)                          # "ng" and the like: the longer path is used

    # the round's rows in the page's order, from the entries and the draw (not from what was published)
    entries = {e.id: e for e in store.repos.entries.list(ev.id)}
    rows = []
    for tb in rnd.tables:
        for s in tb.sides:
            e = entries[s.entry_id]
            ms = [m.name for m in e.members]
            keys = [fold(e.name), *[fold(m) for m in ms], initials(e.name), *[initials(m) for m in ms]]
            rows.append((e.name, tb.number, [re.sub(r"\s", "", k) for k in keys]))
    assert not rnd.byes and len(rows) == ENTRIES

    rng = random.Random(5)
    queries = ["陈𠮷", "𠮷𡈼", "Nguyễn Văn", "NGUYỄN", "ng", "nguyenvanan", "Đặng", "dang", "Trần Thị Bích", "maria",
               "zoë", "JOSE", "Ahmed Khan", "zz", "qx", "team", "constructor", "__proto__"]
    for name, _, keys in rng.sample(rows, 14):
        queries.append(name)                                        # a whole name as typed
        key = rng.choice([k for k in keys if len(k) >= 2])
        start = rng.randrange(len(key) - 1)
        queries.append(key[start:start + rng.choice((2, 3, 4))])    # a piece of a name, a member's or the initials

    fetched: list[str] = []
    ctx = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True, locale="zh-CN")
    page = ctx.new_page()
    page.on("request", lambda r: fetched.append(r.url) if "/find/" in r.url or "find.json" in r.url else None)
    page.goto(f"{stack['site']}/t/{t.id}/find.html")
    box = page.get_by_test_id("find-input")
    hits = page.locator("[data-testid=find-hit]")
    wanted: set[int] = set()
    for q in queries:
        folded = _typed(q)
        expected = [(name, n) for name, n, keys in rows if any(folded in k for k in keys)]
        box.fill(q)
        expect(hits).to_have_count(min(20, len(expected)))
        if not expected:
            expect(page.locator("#find-none")).to_be_visible()
        elif len(expected) > 20:
            expect(page.locator("#find-more")).to_contain_text(str(len(expected) - 20))
        else:
            expect(page.locator("#find-more")).to_be_hidden()
        shown = [(hits.nth(i).locator("strong").inner_text(), hits.nth(i).locator(".seat b").inner_text())
                 for i in range(hits.count())]
        assert shown == [(name, f"第 {n} 桌") for name, n in expected[:20]], q
        chars = list(folded)   # the shards this query needs, by Python's hash: find.js must have fetched these
        for n in range(2, len(chars) + 1):
            k = fnv1a("".join(chars[:n])) % index["count"]
            wanted.add(k)
            if not ("".join(chars[:n]) in shards[k]["heavy"] and n < len(chars)):
                break
    got = [int(re.search(r"/find/(\d+)\.json\?v=", u).group(1)) for u in fetched]
    assert sorted(got) == sorted(wanted)                            # each needed shard, once, and no other

    # the Vietnamese page: the same shards, its own words
    page.goto(f"{stack['site']}/vi/t/{t.id}/find.html")
    page.get_by_test_id("find-input").fill(rows[0][0])
    expect(hits.first).to_contain_text(f"Bàn {rows[0][1]}")
    ctx.close()

    # a result moves no one: the next publish writes no shard again
    written = {p: p.stat().st_mtime_ns for p in (site / f"t/{t.id}/find").iterdir()}
    a, b = (s.entry_id for s in rnd.tables[0].sides)
    results.submit_result(store, ev.id, 1, 1, {"version": 0, "final": {"levels": {a: 10, b: 7}}},
                          results.Actor("organiser", f"organiser:{org.id}"))
    publishing.publish_tournament(store, t.id)
    assert {p: p.stat().st_mtime_ns for p in (site / f"t/{t.id}/find").iterdir()} == written

    # the close: new leaders re-word find.html's link card; no one moved, so the shards are not worked out again
    results_for_round(store.repos, ev, 1)
    page_before = (site / f"t/{t.id}/find.html").read_bytes()
    monkeypatch.setattr(site_pages, "shards_of_keys", lambda keys: pytest.fail("the shards worked out again"))
    rounds.close_round(store, org, ev.id, 1)
    publishing.publish_tournament(store, t.id)
    assert (site / f"t/{t.id}/find.html").read_bytes() != page_before
    assert {p: p.stat().st_mtime_ns for p in (site / f"t/{t.id}/find").iterdir()} == written


def test_find_js_folds_as_the_publisher_folds_in_chromium(browser):
    """find.js's own fold, run in Chromium, against the publisher's (services/hall.fold, which keys the shards): the
    same for every combining mark, not only U+0300–036F (U+1DC0–1DFF, U+20D0–20FF, U+FE20–FE2F, enclosing and
    spacing marks — a name holding one was never found), and for letters that decompose (Vietnamese, Latin, Greek).
    Also for the marks Chromium's own Unicode has and Python 3.11's does not (U+0CF3 Kannada, U+0ECE Lao …: \\p{M}
    stripped them from the query, the publisher kept them in the keys; both take chalicelib/marks.py's list now),
    and in a browser without the "u" flag (its fallback: the list's marks of the BMP, not a few blocks)."""
    import sys
    import unicodedata
    source = (Path(site_pages.__file__).parent / "templates" / "find.js").read_text()
    fold_js = re.search(r"  var MARK_RANGES =\n.*?\n  function fold\(s\) \{\n.*?\n  \}\n", source, re.S).group(0)
    marks = [chr(c) for c in range(0x300, sys.maxunicode + 1)
             if unicodedata.category(chr(c)).startswith("M") and not 0xD800 <= c <= 0xDFFF]
    decomposing = [chr(c) for c in range(0xC0, 0x2000) if unicodedata.decomposition(chr(c))[:1] not in ("", "<")]
    names = ["Nguyễn Văn An", "ĐẶNG Thị", "Zoë", "e\u1dc4n", "Ha\u20dd", "Le\ufe20o\ufe21n", "陈𠮷\u20d2", "मोहन",
             "สมศักดิ์ ใจดี", "ประเสริฐ", "ಕನ್ನಡ\u0cf3", "ລາວ\u0ece", "a\U00011f00b"]
    page = browser.new_page()
    try:
        # Chromium's Unicode is newer than Python 3.11's (14.0). Left out: the few of its new marks that its NFD
        # decomposes (Unicode 16's Tulu-Tigalari, Gurung Khema: 11 in Chromium 156) — Python's NFD does not know them
        browsers_marks, decomposing_marks = page.evaluate("""() => { const out = [[], []], re = /^\\p{M}$/u;
            for (let c = 0x300; c <= 0x10ffff; c++) {
              const s = String.fromCodePoint(c);
              if ((c < 0xd800 || c > 0xdfff) && re.test(s)) out[s.normalize("NFD") === s ? 0 : 1].push(s);
            }
            return out; }""")
        newer, decomposed = sorted(set(browsers_marks) - set(marks)), set(decomposing_marks) - set(marks)
        samples = [f"a{m}b" for m in marks + newer] + [f"X{d}y" for d in decomposing] + names
        folded = page.evaluate(f"(samples) => {{ {fold_js} return samples.map(fold); }}", samples)
        # a browser whose RegExp takes no "u" flag (before ES2015): the same for everything in the BMP
        bmp = [s for s in samples if all(ord(ch) <= 0xFFFF for ch in s)]
        old = page.evaluate("(samples) => { const R = RegExp; RegExp = function (p, f) { if (/u/.test(f || '')) "
                            f"throw new SyntaxError('u'); return new R(p, f); }}; {fold_js} "
                            "try { return samples.map(fold); } finally { RegExp = R; } }", bmp)
    finally:
        page.close()
    assert len(marks) > 2000 and newer and len(decomposed) < 20, (len(newer), sorted(decomposed))
    differ = [(s, js, _typed(s)) for s, js in zip(samples, folded) if js != _typed(s)]
    assert not differ, (len(differ), differ[:10])
    differ = [(s, js, _typed(s)) for s, js in zip(bmp, old) if js != _typed(s)]
    assert not differ, (len(differ), differ[:10])
    assert _typed("สมศักดิ์") == "สมศกด" and _typed("मोहन") == "महन"   # Thai's and Devanagari's marks went
