"""The standings table (templates/standings_table.html) written without Jinja (issue 29): a 10,000-entry event's
standings are 40 pages of 250 rows in three languages, rendered again at each close. The template stays the
table's definition (event.html still includes it): tests/unit/test_standings_table.py compares both byte for byte."""
from __future__ import annotations

from ..glossary import term
from .entry_page import _e
from .i18n import translator
from .money_text import money_text


def _num(v) -> str:   # the templates' `num` filter, escaped as {{ }} does
    return _e(f"{v:g}" if isinstance(v, (int, float)) else v)


class StandingsTable:
    """One language's standings tables; `render(rows, data, currency)` is what the include gives in standings.html.
    Phones (issue 39): rank, name (club under it) and the first points in view; the other columns (class x) hidden
    there and repeated in the name cell's details, a tap away."""

    def __init__(self, lang: str):
        self.lang = lang
        self.t = translator(lang)

    def render(self, rows: list[dict], data: dict, currency: str) -> str:
        t, lang = self.t, self.lang
        ko, pnames, tnames = data.get("knockout"), data["point_names"], data["tiebreak_names"]
        prizes, decided = data["has_prizes"], data["has_decided"]
        first, rest = pnames[:1], pnames[1:]
        extra = bool(ko or rest or tnames or prizes or decided)
        pt = {p: _e(t("pt_" + p)) for p in pnames}
        tbw = {k: _e(t("lots_order") if k == "lots" else t("pt_" + k)) for k in tnames}
        w_reached, w_prize, w_decided = _e(t("reached")), _e(t("prize")), _e(t("decided"))
        head = [f'<div class="scroll st"><table>\n<tr><th class="n">{_e(t("rank"))}</th><th>{_e(t("name"))}</th>']
        head += [f'<th class="n">{pt[p]}</th>' for p in first]
        if ko:
            head.append(f'<th class="x">{w_reached}</th>')
        head += [f'<th class="n x">{pt[p]}</th>' for p in rest]
        head += [f'<th class="n x">{tbw[k]}</th>' for k in tnames]
        if prizes:
            head.append(f'<th class="n x">{w_prize}</th>')
        if decided:
            head.append(f'<th class="x">{w_decided}</th>')
        head.append("</tr>\n")
        out = ["".join(head)]
        lots = _e(t("decided_lots"))
        more = f'<details class="more"><summary>{_e(t("details"))}</summary><dl>'
        for row in rows:
            reached = row.get("reached")
            reached = _e(term("knockout_reached", reached, lang)) if reached else ""
            prize = _e(money_text(row["prize"], currency, lang)) if row.get("prize") else ""
            by = row.get("decided_by")
            if by == "lots":
                why = lots
            elif by:
                values = row["decided_values"]
                why = f"{_e(t('pt_' + by))} {_num(values[0])} : {_num(values[1])}"
            else:
                why = ""
            points, tb = row["points"], row["tiebreaks"]
            club = f'<span class="club">{_e(row["club"])}</span>' if row["club"] else ""
            cells = [f'<tr><td class="n">{_e(row["rank"]) if row["rank"] is not None else ""}</td><td class="nm"><a href="entry-{_e(row["entry_id"])}.html">'
                     f'{_e(row["name"])}</a>{club}']
            if extra:
                cells.append(more)
                if ko:
                    cells.append(f"<dt>{w_reached}</dt><dd>{reached}</dd>")
                cells += [f"<dt>{pt[p]}</dt><dd>{_num(points.get(p, 0))}</dd>" for p in rest]
                cells += [f"<dt>{tbw[k]}</dt><dd>{_num(tb[k]) if k in tb else ''}</dd>" for k in tnames]
                if prizes:
                    cells.append(f"<dt>{w_prize}</dt><dd>{prize}</dd>")
                if decided:
                    cells.append(f"<dt>{w_decided}</dt><dd>{why}</dd>")
                cells.append("</dl></details>")
            cells.append("</td>")
            cells += [f'<td class="n pt">{_num(points.get(p, 0))}</td>' for p in first]
            if ko:
                cells.append(f'<td class="x">{reached}</td>')
            cells += [f'<td class="n x">{_num(points.get(p, 0))}</td>' for p in rest]
            cells += [f'<td class="n x">{_num(tb[k]) if k in tb else ""}</td>' for k in tnames]
            if prizes:
                cells.append(f'<td class="n x">{prize}</td>')
            if decided:
                cells.append(f'<td class="muted x">{why}</td>')
            cells.append("</tr>\n")
            out.append("".join(cells))
        out.append("</table></div>")
        return "".join(out)
