"""Query and BatchGetItem answers taken without botocore's shape walk (store/dynamo.py) are the items botocore
would have given, every kind of value included; on moto and on DynamoDB Local (the embedded store: as put)."""
from __future__ import annotations

import boto3

from chalicelib.store.dynamo import client

ITEM = {"PK": {"S": "P"}, "s": {"S": "名字 \"quoted\""}, "n": {"N": "12.5"}, "b": {"B": b"\x00\xffblob"},
        "bs": {"BS": [b"a", b"\x01"]}, "ss": {"SS": ["x", "y"]}, "ns": {"NS": ["1", "2"]}, "t": {"BOOL": True},
        "z": {"NULL": True}, "m": {"M": {"inner": {"B": b"deep"}, "l": {"L": [{"B": b"in list"}, {"S": "s"}]}}}}


def _plain_client():
    """A client like the store's but without its hooks: botocore parses everything."""
    c = client()
    return boto3.client("dynamodb", endpoint_url=c.meta.endpoint_url, region_name=c.meta.region_name)


def _normal(items):
    return sorted(sorted((k, repr(v)) for k, v in i.items()) for i in items)


def test_items_read_raw_are_what_botocore_parses(any_repos, monkeypatch):
    name = any_repos.table.name
    items = [{**ITEM, "SK": {"S": f"K{k:03d}"}} for k in range(30)]
    for i in items:
        client().put_item(TableName=name, Item=i)
    query = {"TableName": name, "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "P"}},
             "Limit": 7}
    if getattr(client(), "embedded", False):   # no botocore parse to spare: every kind of value read back as put
        page = client().query(**query)
        assert page["Items"] == items[:7] and page["LastEvaluatedKey"] == {"PK": {"S": "P"}, "SK": {"S": "K006"}}
        keys = [{"PK": {"S": "P"}, "SK": {"S": f"K{k:03d}"}} for k in range(0, 30, 3)]
        got = client().batch_get_item(RequestItems={name: {"Keys": keys}})["Responses"][name]
        assert _normal(got) == _normal(items[::3])
        return
    plain = _plain_client()
    from botocore.parsers import BaseJSONParser
    walked = []
    real = BaseJSONParser._handle_structure
    monkeypatch.setattr(BaseJSONParser, "_handle_structure", lambda self, *a: walked.append(1) or real(self, *a))
    fast = client().query(**query)
    walks_fast, walked[:] = len(walked), []
    slow = plain.query(**query)
    assert walks_fast * 10 < len(walked)                          # the store's client did not walk the items
    assert fast["Items"] == slow["Items"] and fast["LastEvaluatedKey"] == slow["LastEvaluatedKey"]
    assert isinstance(fast["Items"][0]["b"]["B"], bytes) and fast["Items"][0]["m"]["M"]["inner"]["B"] == b"deep"
    keys = {name: {"Keys": [{"PK": {"S": "P"}, "SK": {"S": f"K{k:03d}"}} for k in range(0, 30, 3)]}}
    fast, slow = client().batch_get_item(RequestItems=keys), plain.batch_get_item(RequestItems=keys)
    assert _normal(fast["Responses"][name]) == _normal(slow["Responses"][name]) and len(fast["Responses"][name]) == 10
    empty = {**query, "ExpressionAttributeValues": {":p": {"S": "nobody"}}}
    assert client().query(**empty)["Items"] == [] == plain.query(**empty)["Items"]
