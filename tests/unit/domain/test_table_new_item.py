"""A drawn table's item made directly (Table.new_item, what a draw stores) is the item the model would dump
(Table.new(…).to_item()): the same fields, values and order, so the stored JSON is the same bytes."""
from __future__ import annotations

import json
from datetime import datetime, UTC

import pytest

from chalicelib.domain.table import Table


@pytest.mark.parametrize("kw", [
    {},
    {"fixed": ["01A"], "version": 3, "edited": {"by": "referee", "reason": "换桌"}},
    {"team_match": True, "starts_at": datetime(2026, 12, 12, 1, 30, tzinfo=UTC)},
    {"team_match": True},
])
def test_a_new_tables_item_is_what_the_model_dumps(kw):
    args = (42, [("01A", (0, 2)), ("01B", [1, 3])], ["h1", "h2"], "同分配对 01A", {"kind": "same_score", "score": 3})
    made, dumped = Table.new_item(*args, **kw), Table.new(*args, **kw).to_item()
    assert json.dumps(made, ensure_ascii=False) == json.dumps(dumped, ensure_ascii=False)
    assert made == dumped and made["status"] == "pending" and type(made["status"]) is str
