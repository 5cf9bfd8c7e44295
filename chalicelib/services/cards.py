"""Printable table cards (one per table, with each side's table code as a QR code) and blank score sheets."""
from __future__ import annotations

from typing import TYPE_CHECKING

import html

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..models import Organiser
from .rounds import entry_names, load_round, table_code
from .tournaments import own_event

STYLE = """<style>body{font-family:"PingFang SC","Microsoft YaHei","Noto Sans CJK SC",sans-serif;margin:0}
.card{page-break-inside:avoid;border:1px solid #333;margin:8mm;padding:6mm;display:flex;flex-wrap:wrap;gap:6mm}
.card h2{width:100%;margin:0 0 2mm;font-size:16pt}.side{flex:1;min-width:60mm}.side svg{width:32mm;height:32mm}
.code{font:bold 16pt monospace;letter-spacing:2px}table.sheet{border-collapse:collapse;width:100%}
table.sheet td,table.sheet th{border:1px solid #333;height:9mm;padding:1mm 2mm}@media print{.noprint{display:none}}
.find{min-width:30mm;text-align:center;font-size:9pt}.find svg{width:22mm;height:22mm}</style>"""


def _qr_svg(url: str) -> str:
    import segno
    return segno.make(url, error="m").svg_inline(scale=3, border=2)


def table_cards(deps: Deps, organiser: Organiser, eid: str, n: int) -> str:
    event = own_event(deps, organiser, eid)
    tournament = deps.repos.tournaments.get(event.tournament_id)
    _, doc, tables = load_round(deps, eid, n)
    names = {k: v["name"] for k, v in entry_names(deps, eid).items()}
    from .links import site_url
    site = site_url()
    # Find my table (issue 28): the same code on every card, for players still looking for their seat
    find_url = f"{site}/t/{event.tournament_id}/find.html"
    find = (f"<div class='find'>{_qr_svg(find_url)}<p>扫码查座位<br>Find your table<br>"
            f"<small>{html.escape(find_url)}</small></p></div>")
    out = [f"<!doctype html><html lang='zh-CN'><head><meta charset='utf-8'><title>{html.escape(event.config.name)} · "
           f"第{n}轮 桌卡</title>{STYLE}</head><body>"
           "<p class='noprint'><button onclick='print()'>打印 Print</button></p>"]
    for t in tables:
        out.append(f"<div class='card'><h2>{html.escape(tournament.name)} · {html.escape(event.config.name)} · "
                   f"第{n}轮 Round {n} · 第{t['number']}桌 Table {t['number']}</h2>")
        for i, side in enumerate(t["sides"]):
            code = table_code(eid, n, t["number"], i)
            url = f"{site}/score.html?e={eid}&r={n}&t={t['number']}&c={code}"
            out.append(f"<div class='side'><p><b>{html.escape(names.get(side['entry_id'], '?'))}</b><br>"
                       f"座位 Seats: {' '.join(side['seats'])}</p>{_qr_svg(url)}"
                       f"<p>桌号码 Table code: <span class='code'>{code}</span><br><small>{html.escape(url)}</small></p></div>")
        out.append(find + "</div>")
    for bye, reason in doc.get("byes", []):
        out.append(f"<p>轮空 Bye: {html.escape(names.get(bye, '?'))} <small>({html.escape(reason)})</small></p>")
    out.append("</body></html>")
    return "".join(out)


SHEETS = {
    # 贡牌 (rules.md §9, seed 004): 单 single / 双 double / 抗 refused, from the second deal on
    "guandan": ("掼蛋记分表 Guandan score sheet", ["副 Deal", "贡牌 Tribute（单/双/抗）", "上游 1st", "二游 2nd", "三游 3rd", "下游 4th", "南北级 N–S level", "东西级 E–W level"]),
    "doudizhu": ("斗地主记分表 Dou Dizhu score sheet", ["副 Deal", "地主 Landlord", "叫分 Bid", "炸弹 Bombs", "火箭 Rocket", "春天 Spring", "胜方 Winner", "西 W", "南 S", "东 E"]),
    "gouji": ("够级记分表 Gouji score sheet", ["局 Game", "头科", "二科", "三科", "四科", "五科", "六科", "1·3·5", "2·4·6"]),
    "tractor": ("拖拉机记分表 Tractor score sheet", ["副 Deal", "庄家 Banker", "抓分 Points", "亮主张数 Declared", "南北级 N–S", "东西级 E–W"]),
}


def score_sheet(deps: Deps, eid: str) -> str:
    event = deps.repos.events.get(eid)
    if event is None:
        from .. import errors
        raise errors.NotFound("event not found")
    title, cols = SHEETS[event.config.game]
    rows = "".join("<tr>" + "".join("<td></td>" for _ in cols) + "</tr>" for _ in range(12))
    return (f"<!doctype html><html lang='zh-CN'><head><meta charset='utf-8'><title>{title}</title>{STYLE}</head><body>"
            f"<div class='card'><h2>{html.escape(event.config.name)} · {title}</h2>"
            "<p>轮次 Round ____ 桌号 Table ____</p>"
            f"<table class='sheet'><tr>{''.join(f'<th>{c}</th>' for c in cols)}</tr>{rows}</table>"
            "<p>双方签字 Both sides sign: ______________ ______________</p></div></body></html>")
