"""One keyed hash of a phone (installation.phone_hash), imported wherever a phone is keyed, indexed or limited: the
players' sign-in, the "我的" index, the outbox's look-up, the reset and link limits, the retention sweep. Its value is
the formula every stored item was written with — HMAC-SHA256 under the lookup key of "phone:<key form>", 40 hex
digits — so no item stored before is lost by the move (review finding: five copies of it)."""
from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path

import pytest

from chalicelib import installation
from chalicelib.installation import phone_hash
from chalicelib.store.entries import phone_hash_of

ROOT = Path(__file__).resolve().parents[2]


def _as_stored(key_form: str) -> str:
    """The formula as the items were written (store/entries.phone_hash_of, services/players.py before the move)."""
    return hmac.new(installation._lookup_secret(), f"phone:{key_form}".encode(), hashlib.sha256).hexdigest()[:40]


@pytest.mark.parametrize("typed, key_form", [
    ("13812345678", "13812345678"), ("138-1234-5678", "13812345678"), ("+86 138 1234 5678", "13812345678"),
    ("008613812345678", "13812345678"), ("+84912345678", "+84912345678"), ("+84 0912 345 678", "+84912345678"),
])
def test_the_hash_is_the_one_stored_items_were_written_with(typed, key_form):
    assert phone_hash(typed) == phone_hash(key_form) == _as_stored(key_form)
    assert phone_hash_of(typed) == phone_hash(typed)          # the store's name for it is the same function


def test_a_value_that_is_no_phone_is_hashed_as_it_is():
    """key_form keeps what it cannot read (an older record's oddity): it still equals itself."""
    assert phone_hash("not a phone") == _as_stored("not a phone")


def test_no_other_copy_of_the_formula():
    copies = [str(p.relative_to(ROOT)) for p in (ROOT / "chalicelib").rglob("*.py")
              if re.search(r"lookup_hash\(\s*[\"']phone[\"']", p.read_text(encoding="utf-8"))]
    assert copies == ["chalicelib/installation.py"]
