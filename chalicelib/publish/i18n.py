"""The published pages' words: read from catalog.toml (one shared catalog file, zh-CN / en / vi), not from code.

The pages are published in every language of LANGS; a language is a column of the catalog plus a prefix here."""
from __future__ import annotations

import tomllib
from functools import lru_cache, cache
from pathlib import Path

CATALOG = Path(__file__).parent / "catalog.toml"
# page language → the catalog's column, the <html lang>, and where its pages live ("" = /t/…, the default)
LANGS = {"zh": {"column": "zh-CN", "html": "zh-CN", "prefix": ""},
         "en": {"column": "en", "html": "en", "prefix": "en/"},
         "vi": {"column": "vi", "html": "vi", "prefix": "vi/"}}


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict[str, str]]:
    with CATALOG.open("rb") as f:
        return tomllib.load(f)


def prefix(lang: str) -> str:
    return LANGS[lang]["prefix"]


@cache
def translator(lang: str):
    column = LANGS.get(lang, LANGS["en"])["column"]
    words = catalog()

    def t(key: str, **kw) -> str:
        entry = words.get(key)
        text = (entry.get(column) or entry["zh-CN"]) if entry else key
        return text.format(**kw) if kw else text

    return t
