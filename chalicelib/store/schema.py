"""The one definition of the DynamoDB table: tests, the local stack and the CDK stack use it.

Access patterns (keys built in keys.py only):
- tournament + its events:        Query PK=TOURN#<tid>                  (META, EVENT#<eid>…)
- an organiser's tournaments:     Query PK=ORG#<oid>, SK begins_with TOURN#
- organiser by token hash:        Get   PK=ORGTOKEN#<sha256>, SK=META   (strongly consistent, so a
                                  revoked token stops working at once)
- event by id:                    Get   PK=EVENT#<eid>, SK=COUNTERS (holds tid + owner) then the event
- counter shards (big events):    BatchGet PK=EVENT#<eid>#C<k>, SK=COUNTERS (k = 1 … `shards` on the counters item)
- entries of an event:            Query PK=EVENT#<eid>, SK begins_with ENTRY#
- an event's roster (draws):      Query PK=EVENT#<eid>#L<k>, k = 0 … 15 at once (chunk items of entries' roster rows,
                                  keys.roster_chunk; events without `roster_copies` on their counters: the entries)
- entry by id:                    Get   PK=ENTRYID#<id>, SK=META → event id
- waitlist of an event, in order: Query GSI1 GSI1PK=WAITLIST#<eid> (sparse: only waiting entries)
- holds to sweep:                 Query GSI1 GSI1PK=HOLDS, GSI1SK <= now (sparse: only held entries)
- idempotency record:             Get   PK=IDEM#<scope>#<key>, SK=META
- rounds / audit:                 Query PK=EVENT#<eid>, SK begins_with ROUND# / AUDIT# (a round's head, parts, rev counters)
- a round's tables:               Query PK=EVENT#<eid>#R<stage>#<nnn>#T<k>, k = pack mod 16, the keys at once (packs,
                                  table items: keys.round_tables_partition)
- the audit chains' heads:       Get   PK=EVENT#<eid>, SK=AUDITHEAD#<lane> (SK=AUDITHEAD: an event chained before
                                  lanes); the publisher: Query SK begins_with AUDITHEAD, all (store/audit_chain.py)
- long documents' parts:          <head SK>#PART#<digest>#<k> beside their head (store/parts.py)
- payment:                        Get   PK=PAYMENT#<id>, SK=META
Secrets (organiser tokens, manage tokens, table codes) are stored only as SHA-256 hashes.
"""
from __future__ import annotations

PARTITION_KEY = "PK"
SORT_KEY = "SK"
GSI1 = "GSI1"

ATTRIBUTES = [
    {"AttributeName": "PK", "AttributeType": "S"},
    {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"},
    {"AttributeName": "GSI1SK", "AttributeType": "S"},
]
KEY_SCHEMA = [
    {"AttributeName": "PK", "KeyType": "HASH"},
    {"AttributeName": "SK", "KeyType": "RANGE"},
]
GLOBAL_SECONDARY_INDEXES = [
    {
        "IndexName": GSI1,
        "KeySchema": [
            {"AttributeName": "GSI1PK", "KeyType": "HASH"},
            {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"},
    }
]
TTL_ATTRIBUTE = "expires_at"


def create_table_kwargs(table_name: str) -> dict:
    """Arguments for DynamoDB CreateTable (on-demand billing)."""
    return {
        "TableName": table_name,
        "AttributeDefinitions": ATTRIBUTES,
        "KeySchema": KEY_SCHEMA,
        "GlobalSecondaryIndexes": GLOBAL_SECONDARY_INDEXES,
        "BillingMode": "PAY_PER_REQUEST",
    }


def ensure_table(client, table_name: str) -> bool:
    """Create the table when missing; returns True when it was created."""
    try:
        client.describe_table(TableName=table_name)
        return False
    except client.exceptions.ResourceNotFoundException:
        pass
    try:
        client.create_table(**create_table_kwargs(table_name))
    except client.exceptions.ResourceInUseException:
        # our own first attempt, timed out under load (the store's client gives up after 1.5 s) and retried
        pass
    client.get_waiter("table_exists").wait(TableName=table_name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    try:
        client.update_time_to_live(TableName=table_name,
                                   TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE})
    except Exception:  # noqa: BLE001 — DynamoDB Local before 2.x lacks TTL; harmless locally
        pass
    return True
