"""The embedded store's expressions (store/expressions.py) judged against DynamoDB Local: the same random
conditional updates, puts, deletes and transactions on both, from the same items; every answer (the new item, the
conditional failure and the item it returns, a refused request) and every item afterwards the same."""
from __future__ import annotations

import os
import random
from decimal import Decimal
import re

import boto3
import pytest

from chalicelib.store import schema
from chalicelib.store.embedded import EmbeddedClient

# A longer hunt: CONFORMANCE_ROUNDS=5000 CONFORMANCE_SEED=<n> (the suite runs the fixed seed below).
ROUNDS = int(os.environ.get("CONFORMANCE_ROUNDS", "260"))
SEED = int(os.environ.get("CONFORMANCE_SEED", "20261205"))
KEYS = [f"K{k}" for k in range(4)]


def _value(rng: random.Random, kind: str) -> dict:
    if kind == "N":
        return {"N": rng.choice(["0", "1", "2", "-1", "2.50", "10", "100"])}
    if kind == "S":
        return {"S": rng.choice(["", "a", "ab", "abc", "b", "é", "中文", "Z"])}
    if kind == "L":
        return {"L": [_value(rng, "N") for _ in range(rng.randint(0, 3))]}
    if kind == "SS":
        return {"SS": rng.sample(["a", "b", "c", "d"], rng.randint(1, 3))}
    if kind == "M":
        return {"M": {"x": _value(rng, "N"), "y": _value(rng, "S")}}
    if kind == "NS":
        return {"NS": rng.sample(["1", "2", "3.5", "-4"], rng.randint(1, 3))}
    if kind == "NULL":
        return {"NULL": True}
    return {"BOOL": rng.random() < 0.5}


ATTRS = {"n": "N", "s": "S", "l": "L", "ss": "SS", "m": "M", "f": "BOOL", "ns": "NS", "z": "NULL"}


class _Gen:
    """One random expression and the values it names (only those: DynamoDB refuses unused ones)."""

    def __init__(self, rng: random.Random):
        self.rng, self.values, self.names = rng, {}, {}

    def val(self, kind: str | None = None) -> str:
        kind = kind or self.rng.choice(["N", "S", "N", "S", "L", "SS", "BOOL"])
        name = f":v{len(self.values)}"
        self.values[name] = _value(self.rng, kind)
        return name

    def attr(self) -> str:
        a = self.rng.choice(list(ATTRS) + ["m.x", "l[0]", "l[2]", "m.nope", "nope"])
        if self.rng.random() < 0.3 and "." not in a and "[" not in a:
            self.names[f"#{a}"] = a
            return f"#{a}"
        return a

    def atom(self) -> str:
        r = self.rng
        a = self.attr()
        pick = r.randrange(9)
        if pick == 0:
            return f"attribute_exists({a})"
        if pick == 1:
            return f"attribute_not_exists({a})"
        if pick == 2:
            return f"{a} {r.choice(['=', '<>', '<', '<=', '>', '>='])} {self.val(r.choice(['N', 'S']))}"
        if pick == 3:
            return f"{a} {r.choice(['=', '<>'])} {self.val()}"
        if pick == 4:
            return f"size({a}) {r.choice(['=', '<', '>='])} {self.val('N')}"
        if pick == 5:
            return f"begins_with({a}, {self.val('S')})"
        if pick == 6:
            return f"contains({a}, {self.val(r.choice(['S', 'N']))})"
        if pick == 7 and r.random() < 0.3:
            t = f":t{len(self.values)}"
            self.values[t] = {"S": r.choice(["S", "N", "L", "M", "SS", "NS", "BOOL", "NULL"])}
            return f"attribute_type({a}, {t})"
        if pick == 7:
            kind = r.choice(["N", "S"])
            lo, hi = sorted([_value(r, kind), _value(r, kind)], key=lambda v: (float(v["N"]) if kind == "N" else v["S"].encode()))
            self.values[f":lo{len(self.values)}"] = lo
            low = f":lo{len(self.values) - 1}"
            self.values[f":hi{len(self.values)}"] = hi
            return f"{a} BETWEEN {low} AND :hi{len(self.values) - 1}"
        return f"{a} IN ({self.val('N')}, {self.val('S')})"

    def condition(self, depth: int = 0) -> str:
        r = self.rng
        if depth >= 2 or r.random() < 0.45:
            return self.atom()
        pick = r.randrange(4)
        if pick == 0:
            return f"NOT {self.condition(depth + 1)}"
        if pick == 1:
            return f"({self.condition(depth + 1)})"
        return f"{self.condition(depth + 1)} {r.choice(['AND', 'OR'])} {self.condition(depth + 1)}"

    def update(self) -> str:
        r = self.rng
        sets, removes, adds, deletes, used = [], [], [], [], set()

        def free(a):
            if a in used or any(a.split(".")[0].split("[")[0] == u.split(".")[0].split("[")[0] for u in used):
                return False
            used.add(a)
            return True
        for _ in range(r.randint(1, 3)):
            pick = r.randrange(14)
            if pick == 0 and free("s"):
                sets.append(f"s = {self.val('S')}")
            elif pick == 1 and free("n"):
                sets.append(f"n = n {r.choice(['+', '-'])} {self.val('N')}")
            elif pick == 2 and free("n"):
                sets.append(f"n = if_not_exists(n, {self.val('N')}) + {self.val('N')}")
            elif pick == 3 and free("l"):
                sets.append(f"l = list_append(if_not_exists(l, {self.val('L')}), {self.val('L')})")
            elif pick == 4 and free("m.x"):
                sets.append(f"m.x = {self.val('N')}")
            elif pick == 5:
                a = r.choice(["s", "f", "l[0]", "m.y", "nope"])
                if free(a):
                    removes.append(a)
            elif pick == 6 and free("n"):
                adds.append(f"n {self.val('N')}")
            elif pick == 7 and free("ss"):
                adds.append(f"ss {self.val('SS')}")
            elif pick == 8 and free("ss"):
                deletes.append(f"ss {self.val('SS')}")
            elif pick == 9 and free("ns"):
                (adds if r.random() < 0.5 else deletes).append(f"ns {self.val('NS')}")
            elif pick == 10:
                a = r.choice(["l[0]", "l[1]", "l[5]"])
                if free(a):
                    sets.append(f"{a} = {self.val('N')}")
            elif pick == 11 and free("l"):
                removes.append(r.choice(["l[0], l[1]", "l[1], l[0]", "l[3]"]))
            elif pick == 12 and free("m.y"):
                self.names["#y"] = "y"
                sets.append(f"m.#y = if_not_exists(m.#y, {self.val('S')})")
            elif pick == 13 and free("s"):
                sets.append(f"s = {self.val()}")
        parts = []
        for word, actions in (("SET", sets), ("REMOVE", removes), ("ADD", adds), ("DELETE", deletes)):
            if actions:
                parts.append(f"{word} {', '.join(actions)}")
        r.shuffle(parts)
        return " ".join(parts) or f"SET s = {self.val('S')}"


def _item(rng: random.Random, key: str) -> dict:
    item = {"PK": {"S": "P"}, "SK": {"S": key}}
    for a, kind in ATTRS.items():
        if rng.random() < 0.7:
            item[a] = _value(rng, kind)
    return item


def _canon(x):
    """Sets compared as sets; numbers by value (DynamoDB trims their zeroes, DynamoDB Local keeps a list's as sent)."""
    if isinstance(x, dict):
        if set(x) == {"SS"} or set(x) == {"NS"}:
            return {k: sorted(v) for k, v in x.items()}
        if set(x) == {"N"}:
            return {"N": str(Decimal(x["N"]).normalize())}
        return {k: _canon(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_canon(v) for v in x]
    return x


def _outcome(call, **kw):
    from botocore.exceptions import ClientError
    try:
        return ("ok", _canon(call(**kw).get("Attributes")))
    except ClientError as exc:
        code = exc.response["Error"]["Code"]
        if code == "ConditionalCheckFailedException":
            return ("failed", _canon(exc.response.get("Item")))
        if code == "TransactionCanceledException":
            reasons = [(r["Code"], _canon(r.get("Item"))) for r in exc.response.get("CancellationReasons", [])]
            if any(c == "ValidationError" for c, _ in reasons):
                return ("refused",)   # DynamoDB Local says which item in a message, DynamoDB in the reasons
            return ("cancelled", reasons)
        return ("refused",) if code == "ValidationException" else ("error", code)


def _used(text: str, values: dict, names: dict) -> dict:
    out = {}
    v = {k: x for k, x in values.items() if re.search(re.escape(k) + r"\b", text)}
    n = {k: x for k, x in names.items() if re.search(re.escape(k) + r"\b", text)}
    if v:
        out["ExpressionAttributeValues"] = v
    if n:
        out["ExpressionAttributeNames"] = n
    return out


@pytest.fixture
def both(ddb_local_endpoint, tmp_path, request):
    ddb = boto3.client("dynamodb", endpoint_url=ddb_local_endpoint)
    emb = EmbeddedClient(str(tmp_path / "store.sqlite3"))
    name = "conformance_" + request.node.name[-40:].replace("[", "_").replace("]", "_")
    for c in (ddb, emb):
        c.create_table(**schema.create_table_kwargs(name))
    yield ddb, emb, name
    ddb.delete_table(TableName=name)
    emb.close()


def test_random_conditions_and_updates_agree_with_dynamodb_local(both):
    ddb, emb, name = both
    rng = random.Random(SEED)
    for key in KEYS[:3]:
        item = _item(rng, key)
        for c in (ddb, emb):
            c.put_item(TableName=name, Item=item)
    kinds: dict[str, int] = {}
    for step in range(ROUNDS):
        g = _Gen(rng)
        key = {"PK": {"S": "P"}, "SK": {"S": rng.choice(KEYS)}}
        pick = rng.randrange(10)
        if pick < 6:
            update, cond = g.update(), (g.condition() if rng.random() < 0.8 else None)
            kw = {"TableName": name, "Key": key, "UpdateExpression": update, "ReturnValues": "ALL_NEW",
                  "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
            if cond:
                kw["ConditionExpression"] = cond
            kw.update(_used(update + " " + (cond or ""), g.values, g.names))
            outcomes = [_outcome(c.update_item, **kw) for c in (ddb, emb)]
        elif pick < 8:
            cond = g.condition()
            kw = {"TableName": name, "Item": _item(rng, key["SK"]["S"]), "ConditionExpression": cond,
                  "ReturnValuesOnConditionCheckFailure": "ALL_OLD", **_used(cond, g.values, g.names)}
            outcomes = [_outcome(c.put_item, **kw) for c in (ddb, emb)]
        elif pick < 9:
            cond = g.condition()
            kw = {"TableName": name, "Key": key, "ConditionExpression": cond, "ReturnValues": "ALL_OLD",
                  **_used(cond, g.values, g.names)}
            outcomes = [_outcome(c.delete_item, **kw) for c in (ddb, emb)]
        else:
            first, second = rng.sample(KEYS, 2)
            ops = []
            for sk in (first, second):
                g = _Gen(rng)
                update, cond = g.update(), g.condition()
                ops.append({"Update": {"TableName": name, "Key": {"PK": {"S": "P"}, "SK": {"S": sk}},
                                       "UpdateExpression": update, "ConditionExpression": cond,
                                       "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                                       **_used(update + " " + cond, g.values, g.names)}})
            outcomes = [_outcome(c.transact_write_items, TransactItems=ops) for c in (ddb, emb)]
            kw = {"TransactItems": ops}
        assert outcomes[0] == outcomes[1], f"step {step}: {kw}"
        kinds[outcomes[0][0]] = kinds.get(outcomes[0][0], 0) + 1
        if step % 20 == 19:
            for k in KEYS:
                got = [_canon(c.get_item(TableName=name, Key={"PK": {"S": "P"}, "SK": {"S": k}}, ConsistentRead=True)
                              .get("Item")) for c in (ddb, emb)]
                assert got[0] == got[1], f"after step {step}: {k}"
    # the run exercised every kind of answer, not only one
    assert {"ok", "failed", "refused", "cancelled"} <= set(kinds), kinds


def test_queries_page_and_order_as_dynamodb_local(both):
    """Sort keys by UTF-8 bytes, begins_with / BETWEEN / comparisons, both directions, Limit and
    ExclusiveStartKey, the index (GSI1) with ties, Select=COUNT, projections and filters."""
    ddb, emb, name = both
    rng = random.Random(7)
    sks = ["a", "a#1", "a#10", "a#2", "b", "é", "z", "Z", "中", "~", "a\u00ff", "a~", "ab"]
    for sk in sks:
        item = {"PK": {"S": "P"}, "SK": {"S": sk}, "n": {"N": str(rng.randint(0, 5))},
                "GSI1PK": {"S": "G"}, "GSI1SK": {"S": rng.choice(["x", "y", "é"])}}
        for c in (ddb, emb):
            c.put_item(TableName=name, Item=item)
    cases = [("PK = :p", {}), ("PK = :p AND begins_with(SK, :a)", {":a": {"S": "a"}}),
             ("PK = :p AND SK BETWEEN :lo AND :hi", {":lo": {"S": "a#1"}, ":hi": {"S": "b"}}),
             ("PK = :p AND SK < :x", {":x": {"S": "a#2"}}), ("PK = :p AND SK >= :x", {":x": {"S": "z"}})]
    for expr, values in cases:
        for forward in (True, False):
            for limit in (None, 1, 4):
                for extra in ({}, {"Select": "COUNT"}, {"ProjectionExpression": "SK, #n", "ExpressionAttributeNames": {"#n": "n"}},
                              {"FilterExpression": "n > :two"}):
                    kw = {"TableName": name, "KeyConditionExpression": expr, "ScanIndexForward": forward,
                          "ExpressionAttributeValues": {":p": {"S": "P"}, **values, **({":two": {"N": "2"}} if "FilterExpression" in extra else {})},
                          **extra}
                    if limit:
                        kw["Limit"] = limit
                    pages = []
                    for c in (ddb, emb):
                        got, args = [], dict(kw)
                        while True:
                            resp = c.query(**args)
                            got.append((resp.get("Items"), resp["Count"]))
                            if "LastEvaluatedKey" not in resp:
                                break
                            args["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
                        while len(got) > 1 and got[-1] in (([], 0), (None, 0)):
                            got.pop()   # a page stopped at its Limit may or may not say it was the last: both allowed
                        pages.append(got)
                    assert pages[0] == pages[1], kw
    for forward in (True, False):   # the index: items of one GSI1SK in the same order on both (ties by table key)
        kw = {"TableName": name, "IndexName": "GSI1", "KeyConditionExpression": "GSI1PK = :g",
              "ExpressionAttributeValues": {":g": {"S": "G"}}, "ScanIndexForward": forward, "Limit": 3}
        pages = []
        for c in (ddb, emb):
            got, args = [], dict(kw)
            while True:
                resp = c.query(**args)
                got += [(i["GSI1SK"]["S"], i["SK"]["S"]) for i in resp["Items"]]
                if "LastEvaluatedKey" not in resp:
                    break
                args["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
            pages.append(got)
        assert [g for g, _ in pages[0]] == [g for g, _ in pages[1]] and sorted(pages[0]) == sorted(pages[1])
