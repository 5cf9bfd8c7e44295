"""charts.lines keeps each x's text per chart size and formats each y once (30,000 entry pages a publish): its SVG
is the same, byte for byte, as the plain drawing kept here (the code before that change)."""
import random

from markupsafe import Markup, escape

from chalicelib.publish import charts
from chalicelib.publish.charts import BOTTOM, COLOURS, H, RIGHT, TOP, W, _frame, _x


def plain_lines(series, x_labels, *, y_min, y_max, invert=False, y_ticks=None, title="", y_label=str):
    n = len(x_labels)
    head = _frame(tuple(x_labels), y_min, y_max, invert, tuple(y_ticks) if y_ticks is not None else None, title, y_label)
    span = (y_max - y_min) or 1
    scale = H - TOP - BOTTOM
    out = [head]
    for k, s in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        points = [(_x(i, n), TOP + scale * ((v - y_min) / span if invert else 1 - (v - y_min) / span))
                  for i, v in enumerate(s["values"]) if v is not None]
        if len(points) > 1:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5" '
                       f'stroke-linejoin="round" stroke-linecap="round"/>')
        for px, py in points:
            out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{colour}"/>')
        if points and s.get("end_label"):
            px, py = points[-1]
            ly = py - 8 if py - 8 > 14 else py + 20
            out.append(f'<text x="{min(px, W - RIGHT - 2):.1f}" y="{ly:.1f}" text-anchor="end" fill="{colour}" '
                       f'font-weight="700">{escape(s["end_label"])}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def test_lines_draw_the_same_svg_as_the_plain_drawing():
    rng = random.Random(29)
    for case in range(400):
        n = rng.randint(1, 14)
        field = rng.choice([2, 3, 17, 1000, 10000])
        invert = rng.random() < 0.5
        series = []
        for _ in range(rng.randint(1, 3)):
            length = n if rng.random() < 0.8 else rng.randint(0, n + 3)   # also longer or shorter than the axis
            values = [None if rng.random() < 0.15 else rng.choice([rng.randint(1, field), rng.uniform(1, field)])
                      for _ in range(length)]
            series.append({"label": "甲<b>", "values": values, "end_label": rng.choice(["", "第 3 名", "A&B"])})
        kw = dict(y_min=1, y_max=field, invert=invert, y_ticks=charts.place_ticks(field) if case % 2 else None,
                  title="名次", y_label=charts.plain)
        labels = [f"R{i}" for i in range(n)]
        assert str(charts.lines(series, labels, **kw)) == str(plain_lines(series, labels, **kw)), case
