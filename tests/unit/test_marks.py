"""The combining marks find-my-table folds away are one list (chalicelib/marks.py) for the publisher's keys
(services/hall.fold) and for find.js's fold of what is typed: the same text in both files, Unicode's category M as
Python's unicodedata has it, and the marks of Thai and Devanagari names among them. (Both folds run on the same
cases in Chromium: tests/e2e/test_find_shards.py.)"""
from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

import pytest

from chalicelib import marks
from chalicelib.publish import site_pages
from chalicelib.services.hall import fold

FIND_JS = Path(site_pages.__file__).parent / "templates" / "find.js"


def test_find_js_strips_the_list_the_publisher_strips():
    source = FIND_JS.read_text()
    declared = re.search(r"var MARK_RANGES =\n((?:\s*\"[^\"]*\"(?: \+|;)\n)+)", source).group(1)
    text = "".join(re.findall(r"\"([^\"]*)\"", declared))
    assert text.split() == marks.MARK_RANGES.split()
    assert not re.search(r"RegExp\(\"\\\\p\{|/\\p\{", source)   # no class of the browser's own Unicode


def test_the_list_is_unicodes_category_m_in_order():
    ranges = marks.ranges()
    assert all(a <= b < c for (a, b), (c, _) in zip(ranges, ranges[1:]))
    # find.js's fallback without the "u" flag keeps the ranges that end in the BMP: none may straddle it
    assert not any(a <= 0xFFFF < b for a, b in ranges)
    if unicodedata.unidata_version != marks.UNICODE_VERSION:
        pytest.skip(f"Python's Unicode is {unicodedata.unidata_version}, the list's {marks.UNICODE_VERSION}")
    listed = {c for a, b in ranges for c in range(a, b + 1)}
    category_m = {c for c in range(sys.maxunicode + 1)
                  if not 0xD800 <= c <= 0xDFFF and unicodedata.category(chr(c)).startswith("M")}
    assert listed == category_m


@pytest.mark.parametrize("typed, keyed", [
    ("Nguyễn Văn Đức", "nguyen van duc"),
    ("สมศักดิ์", "สมศกด"),                               # Thai: U+0E31, U+0E34 and the silencer U+0E4C go
    ("ประเสริฐ", "ประเสรฐ"),                             # Thai: the vowel sign U+0E34 goes (U+0E40 is a letter)
    ("मोहन", "महन"),                                    # Devanagari: the vowel sign O (U+094B) goes
    ("a\u20ddb\u1dc4c\ufe20", "abc"),                    # marks outside U+0300–036F
])
def test_fold_takes_the_marks_off(typed, keyed):
    assert fold(typed) == keyed
