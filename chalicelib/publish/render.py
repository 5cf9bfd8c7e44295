"""Jinja2 rendering of the published pages (templates/ beside this file)."""
from __future__ import annotations

import re
from pathlib import Path

from . import charts
from .place_files import places_file
from .i18n import LANGS, translator

TEMPLATES = Path(__file__).parent / "templates"
_env = None


def env():
    global _env
    if _env is None:
        from jinja2 import Environment, FileSystemLoader, select_autoescape
        _env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]),
                           trim_blocks=True, lstrip_blocks=True, auto_reload=False)  # no stat per render
        _env.filters["num"] = lambda v: f"{v:g}" if isinstance(v, (int, float)) else v
    return _env


def fragment(template: str, lang: str, **context):
    """A rendered piece to embed in several pages (already escaped)."""
    from markupsafe import Markup
    return Markup(render(template, lang, **context))


def render(template: str, lang: str, **context) -> str:
    return env().get_template(template).render(**_context(lang, context))


def render_bytes(template: str, lang: str, **context) -> bytes:
    """A big page's bytes (the board at 100,000 entries: 15 MB), its pieces encoded as they come: not a list of
    every piece, then the page as a string, then its bytes (issue 43: ~40 MiB a language at the publisher's peak)."""
    import io
    body, pieces = io.BytesIO(), []
    for piece in env().get_template(template).generate(**_context(lang, context)):
        pieces.append(piece)
        if len(pieces) >= 2048:
            body.write("".join(pieces).encode("utf-8"))
            pieces.clear()
    body.write("".join(pieces).encode("utf-8"))
    return body.getvalue()


def _context(lang: str, context: dict) -> dict:
    from ..glossary import bye_text, points_text, reason_text, term
    from .money_text import money_text
    return dict(
        t=translator(lang), lang=lang, html_lang=LANGS[lang]["html"], html_lang_of=lambda x: LANGS[x]["html"],
        in_lang=lambda x, key: translator(x)(key), pts=lambda points, names: points_text(points or {}, names, lang),
        term=lambda kind, code: term(kind, code, lang), money=lambda amount, cur: money_text(amount, cur, lang),
        why=lambda w, fallback="": reason_text(w, lang, context.get("names")) or fallback,
        bye_why=lambda w: bye_text(w, lang), seats=lambda codes: seats_text(codes, lang),
        prize_label=lambda label, place: prize_label(label, place, lang),
        place_chart=lambda places, eid: charts.place_chart(places, eid, translator(lang)), places_file=places_file,
        leaders_chart=lambda places, rows: charts.leaders_chart(places, rows, translator(lang)),
        levels_chart=lambda levels, names: charts.levels_chart(levels, names, translator(lang)), **context)


def seats_text(codes, lang: str) -> str:
    """"南北" for a pair at N S (the words players say), "北 · 东" otherwise; Gouji's numbered seats "1号位"."""
    t = translator(lang)
    pair = "".join(sorted(codes or ()))
    if pair in ("NS", "EW"):
        return t("seats_" + pair)
    return " · ".join(t("seat_" + c) if c in ("N", "S", "E", "W") else t("seat_no", n=c) for c in codes or ())


_CJK = re.compile(r"[\u3400-\u9fff]")


def prize_label(label: str, place: int, lang: str) -> str:
    """An organiser's award name as typed ("第一名"), except on the en and vi pages where a Chinese one becomes the
    place in the page's words ("#1", "hạng 1"): no Chinese on those pages (issue 39)."""
    if lang != "zh" and label and _CJK.search(label):
        return translator(lang)("place_n", n=place)
    return label
