"""The published ranking and player pages (issue 42): static, in every page language, phone-first like the standings
and split into pages like a big event's standings.

    {lang prefix}r/{rid}/index.html, page-2.html …   the ranking (publish_page_rows players a page)
    {lang prefix}p/{pid}.html                        a player: position, points, rating, every counted result
A player page shows the player in the ranking it was published from (a player in two rankings: the latest
published one's page; docs/rankings.md).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import logging

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..config import get_settings
from ..publish.i18n import LANGS, prefix, translator
from . import rankings
from .rankings import board


def _sink(deps: Deps):
    if deps.publisher is not None:
        return deps.publisher
    from ..publish.sinks import default_sink
    return default_sink()


def ranking_path(lang: str, rid: str, page: int = 1) -> str:
    return f"{prefix(lang)}r/{rid}/" + ("index.html" if page == 1 else f"page-{page}.html")


def player_path(lang: str, pid: str) -> str:
    return f"{prefix(lang)}p/{pid}.html"


def publish_ranking(deps: Deps, rid: str, players: set[str] | None = None) -> dict:
    """Writes the ranking's pages and its players' pages (only `players`' when given: an event's, after its
    round closed). Returns how many files were written."""
    from ..publish.render import TEMPLATES, render   # the page renderer only when pages are written (cold starts)
    b = board(deps, rid, deps.clock())
    ranking, rows = b["ranking"], b["rows"]
    size = max(1, get_settings().publish_page_rows)
    chunks = [rows[i:i + size] for i in range(0, len(rows), size)] or [[]]
    sink = _sink(deps)
    css = (TEMPLATES / "style.css").read_text(encoding="utf-8")
    updated = deps.clock().strftime("%Y-%m-%d %H:%M UTC")
    common = {"ranking": ranking, "events": b["events"], "total": len(rows), "updated": updated,
              "decay_pct": round(100 * (ranking["points"].get("decay_per_year") if ranking["points"].get("decay_per_year")
                                        is not None else 0.15)),
              "provisional_tables": ranking.get("provisional_tables", 10)}
    written = 0
    for lang in LANGS:
        sink.write(f"{prefix(lang)}r/{rid}/style.css", css.encode())
        sink.write(f"{prefix(lang)}p/style.css", css.encode())
        pages = [{"n": i, "href": "/" + ranking_path(lang, rid, i),
                  "label": _label(c, lang)} for i, c in enumerate(chunks, start=1)]
        for i, chunk in enumerate(chunks, start=1):
            html = render("ranking.html", lang, **common, rows=chunk, pager={"pages": pages, "i": i},
                          css="style.css", root=f"/{prefix(lang)}r/{rid}/", ranking_href="/" + ranking_path(lang, rid),
                          player_href=lambda pid, lang=lang: "/" + player_path(lang, pid),
                          other_lang=[(x, "/" + ranking_path(x, rid, i)) for x in LANGS if x != lang])
            sink.write(ranking_path(lang, rid, i), html.encode())
            written += 1
        for row in rows:
            if players is not None and row["player_id"] not in players:
                continue
            html = render("ranking_player.html", lang, **common, player=row, css="style.css",
                          ranking_href="/" + ranking_path(lang, rid),
                          other_lang=[(x, "/" + player_path(x, row["player_id"])) for x in LANGS if x != lang])
            sink.write(player_path(lang, row["player_id"]), html.encode())
            written += 1
    return {"files": written, "pages": len(chunks), "players": len(rows)}


def _label(chunk: list[dict], lang: str) -> str:
    return translator(lang)("ranks_from_to", a=chunk[0]["position"], b=chunk[-1]["position"]) if chunk else ""


def on_round_closed(deps: Deps, tournament_id: str, event_id: str, stage: int, round_no: int) -> None:
    """RoundClosed's handler (the lead wires it to the bus): an event that ended gives its places as points, and
    the rankings counting it are published again (the ranking's pages and that event's players' pages)."""
    if not rankings.on_round_closed(deps, tournament_id, event_id, stage, round_no):
        return
    players = event_players(deps, event_id)
    for rid in deps.repos.rankings.rankings_of_event(event_id):
        try:
            publish_ranking(deps, rid, players)
        except Exception as exc:   # noqa: BLE001 — the close stands whatever the pages do; the next publish repairs them
            logging.getLogger("cardgames.rankings").warning("ranking %s pages failed: %s", rid, type(exc).__name__)


def event_players(deps: Deps, event_id: str) -> set[str]:
    """The players of one event: whose pages change when it is counted or ends."""
    members, _, _ = rankings.players_of_entries(deps, event_id)
    return {p for ps in members.values() for p in ps}
