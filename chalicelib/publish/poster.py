"""Posters for WeChat groups (seed 003: "利用各商会的官方网站、微信公众号、微信群"): one PNG per tournament and per
event — name, date, venue, fee, deadline and a QR code (segno) to the registration page — drawn with Pillow in a CJK
font. Pure: data in, PNG bytes out; `services/posters.py` gathers the data.

The font: POSTER_FONT (a path; relative to the app's root, as the Lambda functions set it), else Noto Sans CJK from
Debian's fonts-noto-cjk (`make fonts`), else the subset of it the Lambda package carries (vendor/fonts/, made by
infra/poster_font.py: GB2312 and punctuation). A character the font lacks is drawn as □ (how Chinese print marks
a missing character), an emoji's joiners and variation selectors are left out. Without any font the poster is not
drawn (Misconfigured), never drawn in boxes."""
from __future__ import annotations

import functools
import io
import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from .. import errors

WIDTH, HEIGHT = 1080, 1440            # 3:4, what a phone shows whole in a chat
RED, GOLD, CREAM, INK = (176, 30, 36), (240, 200, 110), (255, 248, 235), (40, 30, 25)
ROOT = Path(__file__).resolve().parent.parent.parent   # /var/task in AWS
FONT_PATHS = ("/usr/share/fonts/opentype/noto/NotoSansCJK-{w}.ttc",
              "/usr/share/fonts/noto-cjk/NotoSansCJK-{w}.ttc",
              str(ROOT / "fonts" / "NotoSansCJKsc-{w}.subset.otf"),            # in the Lambda package
              str(ROOT / "vendor" / "fonts" / "NotoSansCJKsc-{w}.subset.otf"))  # the same, in the source tree
SC_INDEX = 2   # in Noto Sans CJK .ttc files: JP, KR, SC, TC, HK — the Simplified Chinese face
MISSING = "□"  # drawn for a character the font does not have (缺字)


@dataclass
class Poster:
    title: str
    subtitle: str = ""                     # e.g. the tournament's name on an event's poster
    lines: list[tuple[str, str]] = field(default_factory=list)   # (label, value): 时间, 地点, 报名费, 截止
    items: list[str] = field(default_factory=list)               # the events, on a tournament's poster
    url: str = ""                          # the QR code's target
    scan: str = "扫码报名 · Scan to register"


def font_path(weight: str = "Regular") -> str:
    own = os.environ.get("POSTER_FONT")
    if own:
        path = Path(own) if Path(own).is_absolute() else ROOT / own
        path = path.with_name(path.name.replace("Regular", weight))   # its Bold beside it, if there is one
        if path.exists():
            return str(path)
    for pattern in FONT_PATHS:
        path = pattern.format(w=weight)
        if Path(path).exists():
            return path
    if weight != "Regular":
        return font_path("Regular")
    raise errors.Misconfigured("没有中文字体，无法生成海报 · No CJK font for the poster (install fonts-noto-cjk).")


def has_font() -> bool:
    try:
        font_path()
        return True
    except errors.Misconfigured:
        return False


def _font(size: int, bold: bool = False):
    from PIL import ImageFont
    path = font_path("Bold" if bold else "Regular")
    index = SC_INDEX if path.endswith(".ttc") else 0
    return ImageFont.truetype(path, size, index=index)


@functools.lru_cache(maxsize=8)
def _probe(path: str):
    """The font at a small size, and how it draws a character it does not have (its .notdef glyph)."""
    from PIL import ImageFont
    font = ImageFont.truetype(path, 24, index=SC_INDEX if path.endswith(".ttc") else 0)
    return font, bytes(font.getmask("\U0010FFFD"))


@functools.lru_cache(maxsize=8192)
def _has(path: str, ch: str) -> bool:
    font, notdef = _probe(path)
    return ch.isspace() or bytes(font.getmask(ch)) != notdef


def drawable(text: str) -> str:
    """`text` as the poster's font can draw it: characters it lacks become □; zero-width joiners and variation
    selectors (what follows an emoji) are left out, so one missing emoji is one □."""
    path = font_path()
    out = []
    for ch in text:
        if unicodedata.category(ch) in ("Cf", "Mn") and (0xFE00 <= ord(ch) <= 0xFE0F or ord(ch) in (0x200D, 0x200C)
                                                        or 0xE0000 <= ord(ch) <= 0xE01EF):
            continue
        out.append(ch if _has(path, ch) else MISSING)
    return "".join(out)


def _wrap(draw, text: str, font, width: int, max_lines: int) -> list[str]:
    """Chinese wraps between any two characters; a Latin word is kept whole where it fits; past max_lines, "…"."""
    lines, current = [], ""
    for ch in text:
        if draw.textlength(current + ch, font=font) <= width:
            current += ch
            continue
        cut = current.rfind(" ") if ch.isascii() and ch != " " else -1
        if cut > 0:
            lines.append(current[:cut])
            current = current[cut + 1:] + ch
        else:
            lines.append(current)
            current = ch.lstrip()
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        while last and draw.textlength(last + "…", font=font) > width:
            last = last[:-1]
        lines[-1] = last + "…"
    return lines


def _qr(url: str, size: int):
    import segno
    from PIL import Image
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="png", scale=10, border=2, dark="#281e19", light="#ffffff")
    buf.seek(0)
    return Image.open(buf).convert("RGB").resize((size, size), Image.NEAREST)


def render_png(p: Poster) -> bytes:
    from PIL import Image, ImageDraw
    p = Poster(title=drawable(p.title), subtitle=drawable(p.subtitle),
               lines=[(drawable(k), drawable(v or "")) for k, v in p.lines], items=[drawable(i) for i in p.items],
               url=p.url, scan=drawable(p.scan))
    img = Image.new("RGB", (WIDTH, HEIGHT), RED)
    d = ImageDraw.Draw(img)
    margin = 72
    d.rectangle([24, 24, WIDTH - 25, HEIGHT - 25], outline=GOLD, width=6)
    y = 110
    if p.subtitle:
        for line in _wrap(d, p.subtitle, _font(40), WIDTH - 2 * margin, 2):
            d.text((WIDTH // 2, y), line, font=_font(40), fill=GOLD, anchor="mt")
            y += 56
        y += 10
    title_font = _font(84, bold=True)
    for line in _wrap(d, p.title, title_font, WIDTH - 2 * margin, 3):
        d.text((WIDTH // 2, y), line, font=title_font, fill=CREAM, anchor="mt")
        y += 108
    y += 20
    d.line([margin, y, WIDTH - margin, y], fill=GOLD, width=3)
    y += 40
    label_font, value_font = _font(40, bold=True), _font(44)
    for label, value in p.lines:
        if not value:
            continue
        d.text((margin, y), label, font=label_font, fill=GOLD)
        x = margin + int(d.textlength(label, font=label_font)) + 24
        for k, line in enumerate(_wrap(d, value, value_font, WIDTH - margin - x, 2)):
            d.text((x, y + k * 58), line, font=value_font, fill=CREAM)
        y += 58 * min(2, len(_wrap(d, value, value_font, WIDTH - margin - x, 2))) + 18
    item_font = _font(38)
    for item in p.items[:6]:
        for line in _wrap(d, "· " + item, item_font, WIDTH - 2 * margin, 1):
            d.text((margin, y), line, font=item_font, fill=CREAM)
        y += 54
    if len(p.items) > 6:
        d.text((margin, y), f"… +{len(p.items) - 6}", font=item_font, fill=CREAM)
    # The QR code at the foot, on a white card, with what to do under it.
    qr_size = 380
    card_top = HEIGHT - 80 - qr_size - 90
    left = (WIDTH - qr_size - 40) // 2
    d.rounded_rectangle([left, card_top, left + qr_size + 40, card_top + qr_size + 40], radius=18, fill=(255, 255, 255))
    if p.url:
        img.paste(_qr(p.url, qr_size), (left + 20, card_top + 20))
    d.text((WIDTH // 2, card_top + qr_size + 70), p.scan, font=_font(40, bold=True), fill=GOLD, anchor="mt")
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()
