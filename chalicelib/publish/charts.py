"""Small inline SVG charts for the published pages (issue 28): drawn here, on the server, so a phone needs no chart
library and no script. Each chart is a viewBox that scales to the page's width; text stays legible at 360 px."""
from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup, escape

COLOURS = ("#b3261e", "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f")
W, H = 340, 180                      # the viewBox: about the width of a 360 px phone (1 unit ≈ 1 px there)
LEFT, RIGHT, TOP, BOTTOM = 32, 12, 22, 26


def _x(i: int, n: int) -> float:
    return LEFT + (W - LEFT - RIGHT) * (i / (n - 1) if n > 1 else 0.5)


def lines(series: list[dict], x_labels: list[str], *, y_min: float, y_max: float, invert: bool = False,
          y_ticks: list[float] | None = None, title: str = "", y_label=str) -> Markup:
    """Lines over x_labels; series: [{"label", "values": [number | None, …]}]. `invert`: 1 at the top (places).
    `y_label`: a module-level function (the chart's frame is kept by it: 30,000 entry pages share a few frames)."""
    n = len(x_labels)
    head = _frame(tuple(x_labels), y_min, y_max, invert, tuple(y_ticks) if y_ticks is not None else None, title, y_label)
    span = (y_max - y_min) or 1
    scale = H - TOP - BOTTOM
    out = [head]
    # each x and its text once per chart size; each y's text once per point (30,000 entry pages)
    xs = _xs(n, max((len(s["values"]) for s in series), default=0))
    for k, s in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        points = [(xs[i], py, f"{py:.1f}")
                  for i, v in enumerate(s["values"]) if v is not None
                  for py in (TOP + scale * ((v - y_min) / span if invert else 1 - (v - y_min) / span),)]
        if len(points) > 1:
            path = " ".join([f"{x[1]},{ty}" for x, _, ty in points])
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5" '
                       f'stroke-linejoin="round" stroke-linecap="round"/>')
        out.extend([f'<circle cx="{x[1]}" cy="{ty}" r="3.5" fill="{colour}"/>' for x, _, ty in points])
        if points and s.get("end_label"):
            px, py = points[-1][0][0], points[-1][1]
            ly = py - 8 if py - 8 > 14 else py + 20   # above the last point, or below it at the top edge
            out.append(f'<text x="{min(px, W - RIGHT - 2):.1f}" y="{ly:.1f}" text-anchor="end" fill="{colour}" '
                       f'font-weight="700">{escape(s["end_label"])}</text>')
    out.append("</svg>")
    return Markup("".join(out))


@lru_cache(maxsize=64)
def _xs(n: int, m: int) -> tuple:
    """The x of points 0 … m-1 on an axis of n labels, each with its text."""
    return tuple((x, f"{x:.1f}") for x in (_x(i, n) for i in range(m)))


@lru_cache(maxsize=256)
def _frame(x_labels: tuple, y_min: float, y_max: float, invert: bool, y_ticks: tuple | None, title: str,
           y_label) -> str:
    """The chart's opening, grid lines and axis labels: the same for every entry page of an event."""
    n = len(x_labels)
    span = (y_max - y_min) or 1

    def y(v: float) -> float:
        f = (v - y_min) / span
        return TOP + (H - TOP - BOTTOM) * (f if invert else 1 - f)

    out = [f'<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{escape(title)}" '
           f'xmlns="http://www.w3.org/2000/svg" font-size="13" font-family="inherit">']
    for tick in y_ticks if y_ticks is not None else [y_min, y_max]:
        ty = y(tick)
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{ty:.1f}" y2="{ty:.1f}" stroke="#e3e3e3"/>'
                   f'<text x="{LEFT - 4}" y="{ty + 4:.1f}" text-anchor="end" fill="#666">{escape(y_label(tick))}</text>')
    step = max(1, -(-n // 10))        # at most about ten labels under the axis
    for i, lab in enumerate(x_labels):
        if i % step == 0 or i == n - 1:
            out.append(f'<text x="{_x(i, n):.1f}" y="{H - 7}" text-anchor="middle" fill="#666">{escape(lab)}</text>')
    return "".join(out)


def plain(v: float) -> str:
    return f"{v:g}"


def legend(series: list[dict]) -> Markup:
    items = "".join(f'<li><i style="background:{COLOURS[k % len(COLOURS)]}"></i>{escape(s["label"])}</li>'
                    for k, s in enumerate(series))
    return Markup(f'<ul class="legend">{items}</ul>')


def place_ticks(n: int) -> list[float]:
    if n <= 1:
        return [1]
    mid = (n + 1) // 2
    return sorted({1, mid, n})


LEVEL_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}


def level_name(v: float) -> str:
    return LEVEL_NAMES.get(int(v), str(int(v)))


def place_chart(places: dict, entry_id: str, t) -> Markup:
    """An entry's place after each closed round (1 at the top)."""
    mine = (places or {}).get("by_entry", {}).get(entry_id)
    if not mine or len(places["rounds"]) < 2:
        return Markup("")
    field = max(places["field"], 2)
    series = [{"label": "", "values": mine, "end_label": t("place_n", n=mine[-1]) if mine[-1] else ""}]
    return lines(series, _round_labels(tuple(places["rounds"]), t), y_min=1, y_max=field, invert=True,
                 y_ticks=place_ticks(field), title=t("chart_place"), y_label=plain)


@lru_cache(maxsize=64)
def _round_labels(rounds: tuple, t) -> list[str]:
    return [t("round_short", n=n) for n in rounds]


def leaders_chart(places: dict, standings: list, t, top: int = 5) -> Markup:
    """The current leaders' places after each closed round."""
    if not places or len(places.get("rounds", [])) < 2 or not standings:
        return Markup("")
    field = max(places["field"], 2)
    series = [{"label": f'{r["rank"]}. {r["name"]}', "values": places["by_entry"].get(r["entry_id"], [])}
              for r in standings[:top] if r["entry_id"] in places["by_entry"]]
    if not series:
        return Markup("")
    return lines(series, [t("round_short", n=n) for n in places["rounds"]], y_min=1, y_max=field, invert=True,
                 y_ticks=place_ticks(field), title=t("chart_leaders"), y_label=plain) + legend(series)


def levels_chart(levels: list | None, names: list[str], t) -> Markup:
    """Guandan: both sides' levels after each deal of one table (2 … A), the entry's own side first."""
    if not levels or len(levels) < 2:
        return Markup("")
    series = [{"label": names[i], "values": [2] + [d[i] for d in levels]} for i in range(2)]
    return lines(series, ["0"] + [str(k) for k in range(1, len(levels) + 1)], y_min=2, y_max=14,
                 y_ticks=[2, 6, 10, 14], title=t("chart_levels"), y_label=level_name) + legend(series)
