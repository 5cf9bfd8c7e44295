"""The posters' CJK font for the Lambda package: a subset of Noto Sans CJK SC (the Simplified Chinese face of
Debian's fonts-noto-cjk) holding what a poster may draw, made with fontTools' subsetter and kept in
vendor/fonts/ (Chalice puts vendor/'s contents at the package's root: /var/task/fonts/ in AWS).

What it holds (`charset()`): GB2312 whole — its 6,763 hanzi, the ones nearly every name, venue and club is
written in, and its rows of full-width punctuation, symbols, digits, letters, kana, Greek and Cyrillic — plus
ASCII, Latin-1 and Latin Extended-A (¥, ·, ×, accented names), Vietnamese letters (vi is one of the platform's
languages), general and CJK punctuation, and the full-width forms. A character outside it is drawn as □, the
mark Chinese print uses for a missing character (chalicelib/publish/poster.py), never as a crash.

The subset files are committed (a build here takes two minutes a weight): regenerate them with
`.venv/bin/python infra/poster_font.py` after changing `charset()`; tests/unit/test_poster_font.py checks that
they hold the set. The font is under the SIL Open Font License 1.1 (vendor/fonts/OFL.txt); its Reserved Font
Name "Source" is not used by these files' names."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = "/usr/share/fonts/opentype/noto/NotoSansCJK-{weight}.ttc"   # Debian's fonts-noto-cjk (make fonts)
SC_INDEX = 2                                                           # JP, KR, SC, TC, HK in those collections
OUT = ROOT / "vendor" / "fonts" / "NotoSansCJKsc-{weight}.subset.otf"
PACKAGED = "fonts/NotoSansCJKsc-{weight}.subset.otf"                  # where the package holds them
WEIGHTS = ("Regular", "Bold")
EXTRA_RANGES = ((0x20, 0x7E), (0xA0, 0x17F), (0x1A0, 0x1B0), (0x300, 0x309), (0x323, 0x323), (0x1EA0, 0x1EF9),
                (0x2010, 0x2027), (0x2030, 0x205E), (0x20A0, 0x20BF), (0x2100, 0x215F), (0x2190, 0x2199),
                (0x2460, 0x24FF), (0x25A0, 0x25FF), (0x3000, 0x303F), (0xFF01, 0xFF5E), (0xFFE0, 0xFFE6))


def gb2312() -> set[str]:
    """Every character GB2312 encodes (rows 1–9 symbols, 16–87 hanzi), by decoding each two-byte code."""
    out = set()
    for hi in range(0xA1, 0xF8):
        for lo in range(0xA1, 0xFF):
            try:
                out.add(bytes((hi, lo)).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return out


def charset() -> set[str]:
    chars = gb2312()
    for lo, hi in EXTRA_RANGES:
        chars.update(chr(c) for c in range(lo, hi + 1))
    return chars


def build(weight: str, out: Path | None = None) -> Path:
    from fontTools import subset
    from fontTools.ttLib import TTFont
    out = out or Path(str(OUT).format(weight=weight))
    font = TTFont(SOURCE.format(weight=weight), fontNumber=SC_INDEX)
    cmap = font.getBestCmap()
    wanted = [ord(c) for c in charset() if ord(c) in cmap]   # the extras the font does not have are left out
    options = subset.Options()
    options.font_number = SC_INDEX
    options.hinting = False          # drawn large on a 1080 px poster: hints change nothing there
    options.name_IDs = ["*"]         # keep the copyright and licence records
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted)
    subsetter.subset(font)
    out.parent.mkdir(parents=True, exist_ok=True)
    font.save(out)
    return out


if __name__ == "__main__":
    for w in sys.argv[1:] or WEIGHTS:
        path = build(w)
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size / 1e6:.2f} MB")
