"""The posters' font as the Lambda package carries it (vendor/fonts/, infra/poster_font.py): the subset holds
what it promises, and a character outside it is drawn as □, not as a crash or a .notdef box."""
from __future__ import annotations

from pathlib import Path

import pytest

from infra import poster_font
from infra.lambda_package import POSTER_FONT

ROOT = Path(__file__).resolve().parents[2]
SUBSET = ROOT / "vendor" / POSTER_FONT


def test_the_subsets_hold_gb2312_ascii_and_the_punctuation_posters_use():
    from fontTools.ttLib import TTFont
    wanted = poster_font.gb2312() | {chr(c) for c in range(0x20, 0x7F)} | set("¥·×—…“”‘’、。，：；！？（）《》【】〇")
    assert len([c for c in poster_font.gb2312() if "\u4e00" <= c <= "\u9fff"]) == 6763
    for weight in poster_font.WEIGHTS:
        path = Path(str(SUBSET).replace("Regular", weight))
        font = TTFont(path, lazy=True)
        cmap = font.getBestCmap()
        missing = [c for c in wanted if ord(c) not in cmap]
        assert not missing, (weight, missing[:20])
        assert "龘" not in {chr(c) for c in cmap}                  # what is outside GB2312 is left out
        assert path.stat().st_size < 3.5e6, path.stat().st_size     # a subset, not the 19 MB collection
        assert font["name"].getDebugName(1) == "Noto Sans CJK SC"   # OFL: no Reserved Font Name ("Source")


@pytest.fixture
def subset_font(monkeypatch):
    """The poster drawn as in AWS: only the packaged subset (POSTER_FONT relative to the app's root)."""
    from chalicelib.publish import poster
    monkeypatch.setattr(poster, "FONT_PATHS", ())
    monkeypatch.setattr(poster, "ROOT", ROOT / "vendor")
    monkeypatch.setenv("POSTER_FONT", POSTER_FONT)
    assert poster.font_path() == str(SUBSET) and poster.font_path("Bold").endswith("Bold.subset.otf")
    return poster


def test_a_character_outside_the_subset_is_drawn_as_a_missing_mark(subset_font):
    poster = subset_font
    assert poster.drawable("河池龘队") == "河池□队"             # 龘: not in GB2312
    assert poster.drawable("🀄️掼蛋") == "□掼蛋"                # an emoji and its variation selector: one mark
    assert poster.drawable("👨‍👩‍👧 家庭赛") == "□□□ 家庭赛"     # joiners left out
    assert poster.drawable("Nguyễn Văn An · ¥20") == "Nguyễn Văn An · ¥20"
    assert poster.drawable("恒全杯（第三届）—南宁") == "恒全杯（第三届）—南宁"


def test_a_poster_with_such_characters_draws_them_as_the_mark(subset_font):
    poster = subset_font
    odd = poster.render_png(poster.Poster(title="龘🀄️队", lines=[("地点", "南宁")]))
    marked = poster.render_png(poster.Poster(title="□□队", lines=[("地点", "南宁")]))
    assert odd[:8] == b"\x89PNG\r\n\x1a\n" and odd == marked
