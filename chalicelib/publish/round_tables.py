"""A round's tables (templates/round_tables.html) written without Jinja (issue 29): at 10,000 entries a full
publish words 45,000 tables in three languages, and the template engine's cost per row was the largest part of it.
The template stays the fragment's definition: tests/unit/test_round_tables.py renders both over varied rounds and
compares the bytes. Each table's row is kept while its worded table is the same object (after one result, one row
of a 5,000-table round is written again)."""
from __future__ import annotations

from functools import lru_cache

from ..glossary import bye_text, points_text, reason_text, term
from .entry_page import _e, entry_link, points_words
from .i18n import translator
from .render import seats_text


@lru_cache(maxsize=256)
def _seats(lang: str, *codes) -> str:   # the catalog's seat words (北 · 南), never the codes "NS" (issue 39)
    return _e(seats_text(codes, lang))


class RoundTables:
    """One language's round fragments (what fragment("round_tables.html", lang, r=…) gives)."""

    def __init__(self, lang: str):
        self.lang = lang
        t = self.t = translator(lang)
        self.head = (f'<div class="scroll rt"><table>\n<tr><th class="n">{_e(t("table"))}</th><th>{_e(t("draw"))}</th>'
                     f'<th>{_e(t("results"))}</th><th>{_e(t("reason"))}</th></tr>\n')
        self.seed = _e(t("seed"))
        self.bye = _e(t("bye"))
        self.edited = f'<span class="tag edited">{_e(t("edited"))}</span> '
        self.penalty = f'<br><span class="tag penalty">{_e(t("penalty"))}</span> '
        self._words: dict[str, str] = {}
        self._rows: dict[int, tuple[dict, str]] = {}   # the latest round's rows by table number
        self._points = points_words(lang, escaped=True)
        self._tags: dict[str, str] = {}

    def word(self, key: str) -> str:
        w = self._words.get(key)
        if w is None:
            w = self._words[key] = _e(self.t(key))
        return w

    def render(self, r: dict, keep: bool = False) -> str:
        """The fragment of round `r` (or of one page's slice of it). `keep`: remember its rows (the round results
        come in to)."""
        lang, t = self.lang, self.t
        out = [f'<p class="note early-finish">{_e(t("early_finish", name=x["name"], place=x["place"], n=x["from_round"], avg=points_text(x["average"] or {}, r["point_names"], lang)))}'
               f'{_e(t("early_finish_why", **x["why"])) if x.get("why") else ""}</p>'
               for x in r["early_finish"]]
        out.append(self.head)
        rows = self._rows
        for tb in r["tables"]:
            hit = rows.get(tb["number"]) if keep else None
            if hit is None or hit[0] is not tb:
                hit = (tb, self._row(tb))
                if keep:
                    rows[tb["number"]] = hit
            out.append(hit[1])
        for b in r["byes"]:
            out.append(f'<tr><td class="n">–</td><td><a href="entry-{_e(b["entry_id"])}.html">{_e(b["name"])}</a></td>'
                       f'<td>{self.bye}</td><td class="muted reason">{_e(bye_text(b["why"], lang))}</td></tr>')
        out.append(f'</table></div>\n<p class="muted">{self.seed}: {_e(r["seed"])}</p>')
        return "".join(out)

    def forget(self) -> None:
        self._rows.clear()

    def _row(self, tb: dict) -> str:
        lang = self.lang
        sides = tb["sides"]
        draw = "<br>".join([f'{entry_link(s["entry_id"], s["name"])} <span class="muted">{_seats(lang, *s["seats"])}</span>'
                            for s in sides])
        points = tb["points"]
        if points:
            pnames, words = tb["point_names"], self._points
            shown = "<br>".join([words(points.get(s["entry_id"]) or {}, pnames) for s in sides])
        else:
            shown = ""
        status = tb["status"]
        tag = self._tags.get(status)
        if tag is None:
            tag = self._tags[status] = f' <span class="tag {_e(status)}">{self.word("status_" + status)}</span>'
        start = f'<tr><td class="n">{_e(tb["number"])}</td>\n<td>{draw}</td>\n<td>{shown}{tag}'
        if not (tb["rooms"] or tb["edited"] or tb["penalties"] or tb["why"]):   # most rows: in one piece
            return f'{start}</td>\n<td class="muted reason">{_e(tb["reason"])}</td></tr>\n'
        out = [start]
        if tb["rooms"]:
            rooms = " · ".join(f'{self.word("room_" + rm["room"])} {_e(rm["levels"])}' for rm in tb["rooms"])
            out.append(f'<br><span class="muted">{rooms}</span>')
        out.append('</td>\n<td class="muted reason">')
        if tb["edited"]:
            out.append(self.edited)
        why = tb["why"]
        if tb["edited"] and why and why.get("kind") == "edited":   # the tag says 编排调整 once; then the reason
            out.append(_e(why.get("reason", "")))
        else:
            out.append(_e(reason_text(why, lang, None) or tb["reason"]))
        for p in tb["penalties"]:
            out += [self.penalty, _e(p["name"]), " · ", _e(term("penalty", p["kind"], lang))]
            if p.get("deal"):
                out += [" · ", _e(self.t("deal_n", n=p["deal"]))]
            elif p.get("game"):
                out += [" · ", _e(self.t("game_n", n=p["game"]))]
            if p.get("referee"):
                out += [" · ", self.word("referee"), " ", _e(p["referee"])]
        out.append("</td></tr>\n")
        return "".join(out)
