"""Checks of the entries' roster copies (store/entries.py roster_copy_ops): shared by the store tests and the API
tests' check after each test (tests/api/conftest.py)."""
from __future__ import annotations

import json


def copied_and_own(repos, eid: str) -> tuple[list, list]:
    """The event's roster as its copies give it, and as its entries' own roster rows give it (both in id order)."""
    from chalicelib.store.entries import roster_attr
    copies = repos.entries._roster_copies(eid)
    assert copies is not None, f"event {eid} has no roster copies"
    copied = [[r.id, r.status, r.checked_in, r.name, r.club, [m.gender for m in r.members]] for r in copies]
    return copied, [json.loads(roster_attr(e)) for e in repos.entries.list(eid)]


def events_with_copies(repos) -> list[str]:
    from chalicelib.store import dynamo, keys
    kwargs = {"TableName": repos.table.name, "FilterExpression": "#k = :c AND attribute_exists(#r)",
              "ExpressionAttributeNames": {"#k": "kind", "#r": "roster_copies"},
              "ExpressionAttributeValues": {":c": {"S": "event_counters"}}}
    out = []
    while True:
        resp = dynamo.client().scan(**kwargs)
        out += [keys.event_of_partition(i["PK"]["S"]) for i in resp.get("Items", [])]
        if "LastEvaluatedKey" not in resp:
            return out
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]


def forget_roster_copies(repos, eid: str) -> None:
    """The event as created before the copies: no flag on its counters, no chunk items."""
    from chalicelib.store import entries, keys
    repos.table.update(keys.event_counters(eid), "REMOVE roster_copies")
    for pk in keys.roster_partitions(eid):
        for item in repos.table.query(pk):
            repos.table.delete({"PK": item["PK"], "SK": item["SK"]})
    entries._ROSTER_COPIED.discard(eid)
