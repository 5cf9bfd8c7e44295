"""The published pages' catalog (chalicelib/publish/catalog.toml): every key in zh-CN, en and vi, the same
placeholders in each, no Chinese in the en and vi columns, and every word a template asks for is there."""
from __future__ import annotations

import re
import string
from pathlib import Path

from chalicelib import glossary
from chalicelib.publish.i18n import LANGS, catalog, translator
from chalicelib.publish.render import TEMPLATES

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
COLUMNS = [v["column"] for v in LANGS.values()]


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_key_has_every_language_with_the_same_placeholders():
    words = catalog()
    assert len(words) > 100 and COLUMNS == ["zh-CN", "en", "vi"]
    for key, entry in words.items():
        assert set(entry) == set(COLUMNS), key
        assert all(isinstance(entry[c], str) and entry[c] for c in COLUMNS), key
        assert _fields(entry["en"]) == _fields(entry["zh-CN"]) == _fields(entry["vi"]), key
        for column in ("en", "vi"):
            assert not CJK.search(entry[column]), (key, column, entry[column])


def test_vietnamese_is_not_english_copied():
    words = catalog()
    same = [k for k, e in words.items() if e["vi"] == e["en"] and _fields(e["en"]) != {e["en"].strip("{}")}]
    # the few that are alike in both (a separator, a pure placeholder) stay few
    assert len(same) <= 3, same


def test_every_literal_key_in_the_templates_is_in_the_catalog():
    used = set()
    for path in TEMPLATES.glob("*.html"):
        used |= set(re.findall(r"""\bt\(\s*['"]([a-z0-9_]+)['"]\s*[,)]""", path.read_text(encoding="utf-8")))
    assert {"standings", "round", "list_sep"} <= used
    assert used - set(catalog()) == set()


def test_the_keys_built_from_codes_are_there():
    words = catalog()
    for code in glossary.TERMS["point"]:
        assert f"pt_{code}" in words, code
    for code in glossary.TERMS["game"]:
        assert f"game_{code}" in words, code
    for code in glossary.TERMS["table_status"]:
        assert f"status_{code}" in words, code
    for kind in ("result_corrected", "result_overridden", "forfeit_recorded", "force_majeure", "dispute_settled"):
        assert f"kind_{kind}" in words
    for status in ("lodged", "upheld", "rejected"):
        assert f"appeal_{status}" in words


def test_translator_formats_and_falls_back_to_the_key():
    assert translator("zh")("round", n=3) == "第3轮"
    assert translator("en")("round", n=3) == "Round 3"
    assert translator("vi")("round", n=3) == "Vòng 3"
    assert translator("vi")("no_such_key") == "no_such_key"


def test_reasons_and_byes_are_worded_in_vietnamese():
    why = {"kind": "same_score", "score": 3, "avoids": ["a", "b"], "zone": "winners"}
    text = glossary.reason_text(why, "vi", {"b": "张三"})
    assert text == "khu thắng: cùng điểm 3; tránh gặp lại 张三"
    assert glossary.reason_text(why, "zh", {"b": "张三"}) == "胜区：同分 3 相遇；避免与张三重复对阵"
    assert glossary.bye_text({"rule": "second_bye"}, "vi").startswith("miễn đấu")
    assert glossary.points_text({"match_points": 2}, ["match_points"], "vi") == "Điểm trận 2"


def test_no_words_left_in_code():
    source = (Path(__file__).resolve().parents[2] / "chalicelib" / "publish" / "i18n.py").read_text(encoding="utf-8")
    assert not CJK.search(source.split('"""', 2)[2])   # below the docstring: no Chinese words in code
