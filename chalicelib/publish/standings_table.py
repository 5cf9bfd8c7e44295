"""The standings table (templates/standings_table.html) written without Jinja (issue 29): a 10,000-entry event's
standings are 40 pages of 250 rows in three languages, rendered again at each close. The template stays the
table's definition (event.html still includes it): tests/unit/test_standings_table.py compares both byte for byte."""
from __future__ import annotations

from ..glossary import term
from .entry_page import _e
from .i18n import translator


def _num(v) -> str:   # the templates' `num` filter, escaped as {{ }} does
    return _e(f"{v:g}" if isinstance(v, (int, float)) else v)


class StandingsTable:
    """One language's standings tables; `render(rows, data, currency)` is what the include gives in standings.html."""

    def __init__(self, lang: str):
        self.lang = lang
        self.t = translator(lang)

    def render(self, rows: list[dict], data: dict, currency: str) -> str:
        t, lang = self.t, self.lang
        ko, pnames, tnames = data.get("knockout"), data["point_names"], data["tiebreak_names"]
        prizes, decided = data["has_prizes"], data["has_decided"]
        head = [f'<div class="scroll"><table>\n<tr><th class="n">{_e(t("rank"))}</th><th>{_e(t("name"))}</th>'
                f'<th>{_e(t("club"))}</th>']
        if ko:
            head.append(f"<th>{_e(t('reached'))}</th>")
        head += [f'<th class="n">{_e(t("pt_" + p))}</th>' for p in pnames]
        head += [f'<th class="n tb">{_e(t("lots_order") if k == "lots" else t("pt_" + k))}</th>' for k in tnames]
        if prizes:
            head.append(f'<th class="n">{_e(t("prize"))}</th>')
        if decided:
            head.append(f"<th>{_e(t('decided'))}</th>")
        head.append("</tr>\n")
        out = ["".join(head)]
        cur = _e(currency)
        lots = _e(t("decided_lots"))
        for row in rows:
            cells = [f'<tr><td class="n">{_e(row["rank"]) if row["rank"] is not None else ""}</td><td><a href="entry-{_e(row["entry_id"])}.html">'
                     f'{_e(row["name"])}</a></td><td class="muted">{_e(row["club"])}</td>']
            if ko:
                reached = row.get("reached")
                cells.append(f"<td>{_e(term('knockout_reached', reached, lang)) if reached else ''}</td>")
            points = row["points"]
            cells += [f'<td class="n">{_num(points.get(p, 0))}</td>' for p in pnames]
            tb = row["tiebreaks"]
            cells += [f'<td class="n tb">{_num(tb[k]) if k in tb else ""}</td>' for k in tnames]
            if prizes:
                cells.append(f'<td class="n">{_e(row["prize"]) + "&nbsp;" + cur if row.get("prize") else ""}</td>')
            if decided:
                by = row.get("decided_by")
                if by == "lots":
                    text = lots
                elif by:
                    values = row["decided_values"]
                    text = f"{_e(t('pt_' + by))} {_num(values[0])} : {_num(values[1])}"
                else:
                    text = ""
                cells.append(f'<td class="muted">{text}</td>')
            cells.append("</tr>\n")
            out.append("".join(cells))
        out.append("</table></div>")
        return "".join(out)
