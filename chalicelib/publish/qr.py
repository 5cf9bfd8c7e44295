"""QR codes as inline SVG for the published pages (segno; no script, no image file)."""
from __future__ import annotations


def qr_svg(url: str, scale: int = 6) -> str:
    import segno
    from markupsafe import Markup
    return Markup(segno.make(url, error="m").svg_inline(scale=scale, border=2, dark="#000", light="#fff"))
