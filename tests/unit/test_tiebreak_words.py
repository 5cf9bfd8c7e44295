"""Issue 23: a place decided by a tie-break says which and with what values (胜负关系 1 : 0, 净胜分, 抽签), on the
console's standings and the published ones; places decided by points say nothing."""
from __future__ import annotations

from chalicelib.models import StandingRow
from chalicelib.services.standings import _mark_decided

CHAIN = ["level_points", "head_to_head", "net_points", "lots"]


def row(rank, e, pts, **tb):
    return StandingRow(rank=rank, entry_id=e, name=e, points={"level_points": pts}, tiebreaks=tb)


def test_the_deciding_tiebreak_and_its_values_are_named():
    rows = [row(1, "a", 30), row(2, "b", 27, head_to_head=1, net_points=5), row(3, "c", 27, head_to_head=0, net_points=9),
            row(4, "d", 20, head_to_head=0, net_points=3, lots=0.91), row(5, "e", 20, head_to_head=0, net_points=3, lots=0.12),
            row(6, "f", 11)]
    _mark_decided(rows, CHAIN)
    got = [(r.entry_id, r.decided_by, r.decided_values) for r in rows]
    assert got == [("a", None, []), ("b", "head_to_head", [1, 0]), ("c", None, []),
                   ("d", "lots", [0.91, 0.12]), ("e", None, []), ("f", None, [])]


def test_the_published_standings_word_it():
    from chalicelib.publish.render import render
    rows = [row(1, "b", 27, head_to_head=1), row(2, "c", 27, head_to_head=0)]
    _mark_decided(rows, CHAIN)
    ctx = {"standings": [r.model_dump() for r in rows], "point_names": ["level_points"], "tiebreak_names": ["head_to_head"],
           "has_prizes": False, "has_decided": True}
    html = render("standings_table.html", "zh", **ctx)
    assert "同分时名次依据" in html and "胜负关系 1 : 0" in html
