"""The entry pages, written without Jinja (issue 29): at 10,000 entries they are 30,000 of a publish's 30,700 files,
and the template engine's per-page cost (context, inheritance, a hundred escapes) was most of a full publish.

The page's frame (head, header, nav, footer) is templates/entry.html itself, rendered once per event and language
with placeholders for the name and id; the <main> part is built here as the template builds it. The template stays
the page's definition: tests/unit/test_entry_page.py renders both over varied entries and compares the bytes."""
from __future__ import annotations

import re
from functools import lru_cache
from math import copysign

from markupsafe import escape

from ..glossary import term
from . import charts
from .i18n import translator
from .place_files import places_file
from .render import render

_NAME, _ID = "\ue000name\ue000", "\ue000id\ue000"   # private-use characters: no name or id holds them


_SPECIAL = re.compile(r"[&<>'\"]").search


def _e(value) -> str:
    """markupsafe.escape's text (as the template's {{ }} gives it), without making a Markup of every piece."""
    if type(value) is not str:
        return str(escape(value))
    if _SPECIAL(value) is None:   # most names and words: nothing to escape
        return value
    return (value.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;")
            .replace('"', "&#34;"))


def points_words(lang: str, escaped: bool = False):
    """glossary.points_text for one language, with each point's name looked up once and each text kept by the
    values it shows (it runs for every row of 45,000 tables and 90,000 history rows: a few hundred texts).
    `escaped`: the text as the page shows it (_e)."""
    words: dict[str, str] = {}
    kept: dict[tuple, str] = {}

    def worded(points: dict, names) -> str:
        out = []
        for n in names:
            if n in points:
                word = words.get(n)
                if word is None:
                    word = words[n] = term("point", n, lang)
                v = points[n]
                out.append(f"{word} {f'{v:g}' if isinstance(v, (int, float)) else v}")
        return _e(" · ".join(out)) if escaped else " · ".join(out)

    def text(points: dict, names: list[str]) -> str:
        for v in points.values():   # kept only where equal values are worded alike (not -0.0 and 0.0, say)
            tv = type(v)
            if tv is float:
                if v == 0 and copysign(1.0, v) < 0:
                    return worded(points, names)
            elif tv is not int:
                return worded(points, names)
        key = (*names, None, *points.items())
        hit = kept.get(key)
        if hit is None:
            if len(kept) > 20_000:
                kept.clear()
            hit = kept[key] = worded(points, names)
        return hit

    return text


@lru_cache(maxsize=1 << 16)
def entry_link(entry_id: str, name: str) -> str:
    """An entry's name linking to its page (the same in every language: each one is written 20 times a publish)."""
    return f'<a href="entry-{_e(entry_id)}.html">{_e(name)}</a>'


class EntryPages:
    """One event's entry pages in one language. `context`: what render("entry.html") gets besides the entry, its
    history, its id and the other languages' links; `other(page)`: those links for a page of the event folder."""

    def __init__(self, lang: str, context: dict, folder: str, other):
        self.lang = lang
        self.t = translator(lang)
        self.chunks = context.get("places_chunks", 1)
        frame = render("entry.html", lang, **{**context, "places_chunks": 1},
                       entry={"name": _NAME, "club": "", "members": []},
                       history=[], entry_id=_ID, other_lang=other(f"{folder}entry-{_ID}.html"))
        start, end = frame.index("<main>") + len("<main>"), frame.index("</main>")
        self.head, self.tail = frame[:start], frame[end:]
        if _NAME in self.tail or _ID in self.tail:
            raise ValueError("entry.html: the name and id are expected before <main> only")
        t = self.t
        self.sep = t("list_sep")
        self.place_section = ('" hidden><h3>' + _e(t("chart_place")) + '</h3><figure class="chart-box" data-chart="place">'
                              '</figure></section><noscript><p class="muted"><a href="standings.html">'
                              + _e(t("place_see_standings")) + "</a></p></noscript>\n")
        self.table_head = (f"<h3>{_e(t('history'))}</h3>\n<table><tr><th>{_e(t('rounds'))}</th><th>{_e(t('vs'))}</th>"
                           f"<th>{_e(t('points'))}</th></tr>\n")
        self.bye = _e(t("bye"))
        self.levels_h3 = _e(t("chart_levels"))
        self._round: dict[int, str] = {}
        self._status: dict[str, str] = {}
        self._points = points_words(lang, escaped=True)
        self._row_heads: dict[int, str] = {}
        self._row_tails: dict[str, str] = {}

    def render(self, entry: dict, history: list[dict], entry_id: str) -> str:
        name = _e(entry["name"])
        head = self.head.replace(_NAME, name).replace(_ID, entry_id)
        out = [head, "<h2>", name, '</h2>\n<p class="muted">', _e(entry["club"])]
        if entry["members"]:
            out += [" · ", _e(self.sep.join(entry["members"]))]
        out.append("</p>\n")
        out += ['<section class="place-chart" data-places="', places_file(entry_id, self.chunks), '" data-entry="',
                entry_id, self.place_section]
        out.append(self.table_head)
        heads, tails, points = self._row_heads, self._row_tails, self._points
        for h in history:   # a row in one f-string: its head (the round) and tail (the status) kept per language
            n, status = h["round"], h["status"]
            head = heads.get(n)
            if head is None:
                head = heads[n] = f"<tr><td>{self._round_word(n)}</td><td>"
            tail = tails.get(status)
            if tail is None:
                tail = tails[status] = f' <span class="tag {_e(status)}">{self._status_word(status)}</span></td></tr>'
            vs = self.bye if h["bye"] else ", ".join([entry_link(o["entry_id"], o["name"]) for o in h["opponents"]])
            out.append(f'{head}{vs}</td><td>{points(h["points"] or {}, h["point_names"])}{tail}')
        out.append("</table>\n")
        for h in history:
            if h.get("levels"):
                names = [entry["name"], *(o["name"] for o in h["opponents"])]
                out += ["<h3>", self.levels_h3, " · ", self._round_word(h["round"]),
                        '</h3>\n<figure class="chart-box" data-chart="levels">',
                        str(charts.levels_chart(h["levels"], names, self.t)), "</figure>"]
        out.append(self.tail)
        return "".join(out)

    def _round_word(self, n: int) -> str:
        word = self._round.get(n)
        if word is None:
            word = self._round[n] = _e(self.t("round", n=n))
        return word

    def _status_word(self, status: str) -> str:
        word = self._status.get(status)
        if word is None:
            word = self._status[status] = _e(self.t("status_" + status))
        return word
