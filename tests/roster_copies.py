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


def mismatched_events(repos) -> list[str]:
    """Events flagged as having roster copies whose copies differ from their entries' own rows: one scan of the
    whole table (a test's table is small), for the check after every API test."""
    from chalicelib.store import dynamo, keys
    from chalicelib.store.entries import ROSTER_ROW
    flagged, copies, own = set(), {}, {}
    kwargs = {"TableName": repos.table.name}
    while True:
        resp = dynamo.client().scan(**kwargs)
        for item in resp.get("Items", []):
            kind = item.get("kind", {}).get("S")
            eid = keys.event_of_partition(item["PK"]["S"])
            if kind == "event_counters" and "roster_copies" in item:
                flagged.add(eid)
            elif kind == "entry":
                own.setdefault(eid, {})[item["SK"]["S"][len(keys.ENTRY_PREFIX):]] = json.loads(item["roster"]["S"])
            elif kind == "roster_chunk":
                copies.setdefault(eid, {}).update({k[len(ROSTER_ROW):]: json.loads(v["S"]) for k, v in item.items()
                                                   if k.startswith(ROSTER_ROW)})
        if "LastEvaluatedKey" not in resp:
            break
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
    return sorted(eid for eid in flagged if copies.get(eid, {}) != own.get(eid, {}))


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
