"""One-off changes of stored layout, run where a store with older data is opened (the local and venue runner,
scripts/dev.py) and safe to run again: each finds what is left to do and does only that."""
from __future__ import annotations

import json

from ..errors import Conflict
from .dynamo import Table, chunks, client, from_item, to_item


def _scanned(kwargs: dict) -> list[dict]:
    """Every item a scan of `kwargs` (its filter) finds, read page after page, as plain dicts."""
    found: list[dict] = []
    while True:
        resp = client().scan(**kwargs)
        found += [from_item(raw) for raw in resp.get("Items", [])]
        if "LastEvaluatedKey" not in resp:
            return found
        kwargs = {**kwargs, "ExclusiveStartKey": resp["LastEvaluatedKey"]}


def pack_tables(table: Table) -> int:
    """Tables stored one to an item (`ROUND#s#nnn#TABLE#tttt`, kind "table", before session 5) moved into their packs
    (keys.table_pack): each round's packs written with every old table of it (an existing pack's tables kept), then the
    old items deleted. Run before the API serves (nothing writes tables meanwhile); a crash in between leaves the old
    items, and the next run writes the same packs again. Returns how many tables moved."""
    from .keys import round_
    from .rounds import RoundRepo
    old: dict[tuple[str, int, int], list[dict]] = {}
    kwargs = {"TableName": table.name, "FilterExpression": "#k = :t", "ExpressionAttributeNames": {"#k": "kind"},
              "ExpressionAttributeValues": {":t": {"S": "table"}}}
    while True:
        resp = client().scan(**kwargs)
        for raw in resp.get("Items", []):
            item = from_item(raw)
            _, stage, n, _, _ = item["SK"].split("#")
            old.setdefault((item["PK"].split("#", 1)[1], int(stage), int(n)), []).append(item)
        if "LastEvaluatedKey" not in resp:
            break
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
    repo = RoundRepo(table)
    for (eid, stage, n), items in sorted(old.items()):
        tables = [{**json.loads(i["data"]), "version": int(i.get("version", 0))} for i in items]
        packs = repo.table_items(eid, stage, n, tables)
        current = table.get_many([{"PK": p["PK"], "SK": p["SK"]} for p in packs])
        for pack, there in zip(packs, current):
            for attr, value in (there or {}).items():   # a table already packed (a draw after the upgrade) stays
                if attr[:1] in ("t", "v") and attr[1:].isdigit():
                    pack[attr] = value
        kept = [json.loads(v) for pack in packs for attr, v in pack.items() if attr[:1] == "t" and attr[1:].isdigit()]
        repo._batch_put([*packs, *repo.written_items(eid, stage, n, kept)])   # tables past version 0: their items too
        try:   # its head, if any, no longer bounds which of its table keys are read: all are
            table.update(round_(eid, stage, n), "REMOVE table_keys", condition="attribute_exists(PK)")
        except Conflict:
            pass
        for batch in chunks([{"DeleteRequest": {"Key": to_item({"PK": i["PK"], "SK": i["SK"]})}} for i in items], 25):
            repo._write_batch(batch)
    return sum(len(v) for v in old.values())


def written_tables_out_of_packs(table: Table) -> int:
    """Tables whose results were written into their pack (the layout of sessions 5–7: a result updated its pack's
    attributes and the round head's `rev`) given their own table item (keys.table_item), so that the rule a result's
    write relies on holds: a pack's copy of a table with no table item is at version 0 (store/rounds.py,
    _written_condition). Each item is written only where none exists (one there was written since, and is newer);
    the pack is left as it is (its copy is shadowed). Until this has run such a round still reads the same; only a
    write to one of those tables is refused as stale. Safe beside live writers and when run again. Returns how many
    table items were written."""
    from .keys import TABLE_PACK_MARK, event_of_partition
    from .rounds import RoundRepo, tables_of_pack
    kwargs = {"TableName": table.name, "FilterExpression": "#k = :t", "ExpressionAttributeNames": {"#k": "kind"},
              "ExpressionAttributeValues": {":t": {"S": "tables"}}}
    done = 0
    while True:
        resp = client().scan(**kwargs)
        for raw in resp.get("Items", []):
            written = [t for t in tables_of_pack(raw) if t.get("version", 0) != 0]
            if not written:
                continue
            round_sk = raw["SK"]["S"].split(TABLE_PACK_MARK)[0]
            _, stage, n = round_sk.split("#")
            eid = event_of_partition(raw["PK"]["S"])
            for item in RoundRepo.written_items(eid, int(stage), int(n), written):
                try:
                    table.put(item, condition="attribute_not_exists(PK)")
                    done += 1
                except Conflict:
                    pass
        if "LastEvaluatedKey" not in resp:
            break
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
    return done


def spread_round_tables(table: Table) -> int:
    """Rounds' packs and table items stored under their event's partition key (before issue 43's table keys) moved
    to their round's table keys (keys.round_tables_partition): each written there only where none is (one written
    since is newer: a result after the upgrade), then the old item deleted. A round read meanwhile finds its tables
    in either place (RoundRepo reads the event key's too, its own first); a result written to a table not moved yet
    is refused as stale (its new item is missing), never written wrong: run before the API serves, as the others.
    Safe when run again. Returns how many items moved."""
    from . import keys
    kwargs = {"TableName": table.name, "FilterExpression": "#k IN (:t, :i)", "ExpressionAttributeNames": {"#k": "kind"},
              "ExpressionAttributeValues": {":t": {"S": "tables"}, ":i": {"S": "table_item"}}}
    moved = 0
    while True:
        resp = client().scan(**kwargs)
        for raw in resp.get("Items", []):
            pk, sk = raw["PK"]["S"], raw["SK"]["S"]
            eid = keys.event_of_partition(pk)
            if pk != keys.event_partition(eid):
                continue   # under its round's own keys already
            _, stage, n = sk.split(keys.TABLE_PACK_MARK)[0].split("#")
            pack_no = keys.pack_no_of(sk) or 0
            try:
                table.put({**from_item(raw), "PK": keys.round_tables_partition(eid, int(stage), int(n), pack_no)},
                          condition="attribute_not_exists(PK)")
            except Conflict:
                pass
            client().delete_item(TableName=table.name, Key={"PK": raw["PK"], "SK": raw["SK"]})
            moved += 1
        if "LastEvaluatedKey" not in resp:
            return moved
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]


def chain_audit(table: Table) -> int:
    """Audit records written before the hash chain (items of kind "audit" without a `seq`) appended to their
    lane's chain (or their event's one chain, for an event chained before lanes) in the order of their ids (time first), each item gaining its chain fields in place. Appended
    through the chain's own conditional append (store/audit_chain.py), so it is safe beside live writers and when
    run again (a record already chained is left). Returns how many records were chained."""
    from .audit_chain import append
    legacy: dict[str, list[dict]] = {}
    kwargs = {"TableName": table.name, "FilterExpression": "#k = :a AND attribute_not_exists(#s)",
              "ExpressionAttributeNames": {"#k": "kind", "#s": "seq"},
              "ExpressionAttributeValues": {":a": {"S": "audit"}}}
    while True:
        resp = client().scan(**kwargs)
        for raw in resp.get("Items", []):
            item = from_item(raw)
            legacy.setdefault(item["PK"].split("#", 1)[1], []).append(item)
        if "LastEvaluatedKey" not in resp:
            break
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
    done = 0
    for eid, items in sorted(legacy.items()):
        for item in sorted(items, key=lambda i: i["SK"]):
            if append(table, eid, json.loads(item["data"]), legacy=True) is not None:
                done += 1
    return done


def index_retention(table: Table) -> int:
    """Tournaments stored before retention (issue 41) put in the RETENTION index by the day their contact data is
    due (repositories.tournament_item), so the sweep finds them too. Returns how many were indexed."""
    from ..models import Tournament
    from .repositories import tournament_item
    kwargs = {"TableName": table.name, "FilterExpression": "#k = :t AND attribute_not_exists(GSI1PK)",
              "ExpressionAttributeNames": {"#k": "kind"}, "ExpressionAttributeValues": {":t": {"S": "tournament"}}}
    done = 0
    while True:
        resp = client().scan(**kwargs)
        for raw in resp.get("Items", []):
            item = from_item(raw)
            tournament = Tournament.model_validate_json(item["data"])
            if tournament.contacts_erased_at is None:
                table.update({"PK": item["PK"], "SK": item["SK"]}, "SET GSI1PK = :p, GSI1SK = :s",
                             values={":p": (index := tournament_item(tournament))["GSI1PK"], ":s": index["GSI1SK"]},
                             condition="attribute_exists(PK)")
                done += 1
        if "LastEvaluatedKey" not in resp:
            return done
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]


def index_phones(table: Table) -> int:
    """Entries and day registrations made before the phone index (api.md v1.3 "Players") indexed by their phones
    (store/entries.phone_index_ops): each written only where it is missing, so it is safe beside live writers
    (which write their own with the entry) and when run again. A day registration's entry gets none for the
    registration's contact phone, as create_many writes it: the registration's own index item finds it
    (services/players.py). Returns how many index items were written."""
    from .. import errors
    from ..models import Entry
    from .dynamo import Op
    from .entries import phone_hash_of, phone_index_ops, phone_registration_item
    wanted: list[dict] = []
    # a registration's contact hash and listed entries, known only once the scan has read it (any order): the
    # entries of a registration wait for it
    contacts: dict[str, tuple[str | None, set[str]]] = {}
    of_registrations: list[Entry] = []
    kwargs = {"TableName": table.name, "FilterExpression": "#k = :e OR #k = :r", "ExpressionAttributeNames": {"#k": "kind"},
              "ExpressionAttributeValues": {":e": {"S": "entry"}, ":r": {"S": "registration"}}}
    while True:
        resp = client().scan(**kwargs)
        for raw in resp.get("Items", []):
            item = from_item(raw)
            if item["kind"] == "entry":
                entry = Entry.model_validate_json(item["data"])
                if entry.registration_id:
                    of_registrations.append(entry)
                else:
                    wanted += [op.item for op in phone_index_ops(entry)]
                continue
            phone = (item.get("contact") or {}).get("phone")
            contacts[item["id"]] = (phone_hash_of(phone) if phone else None,
                                    {i["entry_id"] for i in item.get("items") or [] if i.get("entry_id")})
            if phone:
                wanted.append(phone_registration_item(phone_hash_of(phone), item))
        if "LastEvaluatedKey" not in resp:
            break
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
    for entry in of_registrations:
        contact_hash, listed = contacts.get(entry.registration_id, (None, set()))
        wanted += [op.item for op in phone_index_ops(entry, indexed=contact_hash if entry.id in listed else None)]
    present = []
    for batch in chunks(wanted, 100):
        present += table.get_many([{"PK": w["PK"], "SK": w["SK"]} for w in batch])
    written = 0
    for item, there in zip(wanted, present):
        if there is None:
            try:
                table.transact([Op.put(item, condition="attribute_not_exists(PK)")])
                written += 1
            except errors.Conflict:   # written meanwhile by the entry's own change
                pass
    return written


def unlink_erased_phones(table: Table) -> int:
    """Phone index items ("我的") left pointing at an entry or day registration that no longer holds that phone:
    the retention sweeps run before it removed the index with the entry (issue 41 follow-up) erased the phone and
    left the item. Each such item is deleted (a hash of a phone is still the phone); an item whose record still
    holds its phone stays, so it is safe beside live writers and when run again. Returns how many were deleted."""
    from . import keys
    from .entries import phone_hash_of
    kwargs = {"TableName": table.name, "FilterExpression": "#k = :e OR #k = :r", "ExpressionAttributeNames": {"#k": "kind"},
              "ExpressionAttributeValues": {":e": {"S": "phone_entry"}, ":r": {"S": "phone_registration"}}}
    found = _scanned(kwargs)

    def record_key(item: dict) -> dict:
        if item["kind"] == "phone_entry":
            return keys.entry(item["event_id"], item["entry_id"])
        return keys.registration(item["registration_id"])

    def phones(record: dict | None) -> set[str]:
        if record is None:
            return set()
        if record.get("kind") == "entry":
            return {m["phone"] for m in json.loads(record["data"]).get("members", []) if m.get("phone")}
        return {p for p in [(record.get("contact") or {}).get("phone")] if p}

    deleted = 0
    for batch in chunks(found, 100):
        records = table.get_many([record_key(i) for i in batch])
        for item, record in zip(batch, records):
            h = item["PK"].removeprefix(keys.phone_partition(""))
            if h not in {phone_hash_of(p) for p in phones(record)}:
                table.delete({"PK": item["PK"], "SK": item["SK"]})
                deleted += 1
    return deleted


def drop_orphan_wechat_bindings(table: Table) -> int:
    """WeChat bindings (`WECHAT#<openid hash>`) that lead to a phone whose player is gone, or whose player now holds
    another openid: the retention sweeps run before the fix dropped the player and left its binding (tidy lane),
    and the openid would still lead to that phone's hash. Each is deleted in a transaction that checks the player
    still does not hold it, so a binding written meanwhile stays; safe to run again. Returns how many went."""
    from . import keys
    from .dynamo import Op
    kwargs = {"TableName": table.name, "FilterExpression": "#k = :b", "ExpressionAttributeNames": {"#k": "kind"},
              "ExpressionAttributeValues": {":b": {"S": "wechat_binding"}}}
    found = _scanned(kwargs)
    deleted = 0
    for batch in chunks(found, 100):
        players = table.get_many([keys.player(b["phone_hash"]) for b in batch])
        for binding, player in zip(batch, players):
            openid_hash = binding["PK"].removeprefix("WECHAT#")
            if player is not None and player.get("wechat_hash") == openid_hash:
                continue
            try:
                table.transact([
                    Op.delete({"PK": binding["PK"], "SK": binding["SK"]}, condition="phone_hash = :p",
                              values={":p": binding["phone_hash"]}, on_fail=Conflict),
                    Op.check(keys.player(binding["phone_hash"]),
                             "attribute_not_exists(PK) OR attribute_not_exists(wechat_hash) OR wechat_hash <> :h",
                             values={":h": openid_hash}, on_fail=Conflict)])
                deleted += 1
            except Conflict:   # bound again meanwhile: it is a player's now
                pass
    return deleted
def copy_rosters(table: Table) -> int:
    """Events created before the roster copies (issue 43: keys.roster_chunk) given them: each entry's roster row set
    in its chunk item only where that entry has none (`if_not_exists`: one written since by the entry's own change is
    newer, and every change of a roster field writes its copy whatever the event's age), then `roster_copies` on the
    event's counters item, from which on a draw reads the copies. Until then it reads the entries (the fallback), so
    this is safe beside live writers, and when run again. Returns how many events it copied."""
    from . import keys
    from .entries import ROSTER_ROW, EntryRepo, roster_attr
    from ..models import Entry
    kwargs = {"TableName": table.name, "FilterExpression": "#k = :c AND attribute_not_exists(#r)",
              "ExpressionAttributeNames": {"#k": "kind", "#r": "roster_copies"},
              "ExpressionAttributeValues": {":c": {"S": "event_counters"}}}
    events: list[str] = []
    while True:
        resp = client().scan(**kwargs)
        events += [keys.event_of_partition(raw["PK"]["S"]) for raw in resp.get("Items", [])]
        if "LastEvaluatedKey" not in resp:
            break
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
    repo = EntryRepo(table)
    for eid in events:
        by_chunk: dict[tuple[str, str], dict[str, str]] = {}
        for raw in repo._entry_items(eid, (), "roster, data"):
            row = raw["roster"]["S"] if "roster" in raw else roster_attr(Entry.model_validate_json(raw["data"]["S"]))
            entry_id = raw["SK"]["S"][len(keys.ENTRY_PREFIX):]
            key = keys.roster_chunk(eid, entry_id)
            by_chunk.setdefault((key["PK"], key["SK"]), {})[ROSTER_ROW + entry_id] = row
        for (pk, sk), rows in by_chunk.items():
            for part in chunks(list(rows.items()), 40):   # an update expression is at most 4 KB
                names = {"#kind": "kind", **{f"#r{i}": name for i, (name, _) in enumerate(part)}}
                values = {":kind": "roster_chunk", **{f":r{i}": row for i, (_, row) in enumerate(part)}}
                sets = ", ".join(f"#r{i} = if_not_exists(#r{i}, :r{i})" for i in range(len(part)))
                table.update({"PK": pk, "SK": sk}, f"SET #kind = :kind, {sets}", names=names, values=values,
                             returns="NONE")
        table.update(keys.event_counters(eid), "SET roster_copies = :one", values={":one": 1},
                     condition="attribute_exists(PK)", returns="NONE")
    return len(events)
