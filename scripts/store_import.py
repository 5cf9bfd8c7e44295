"""A venue's data from DynamoDB Local's files (.data/ddb/*.db, the store of earlier versions) carried into the
embedded store (chalicelib/store/embedded.py) on the first start of this version: once, all or nothing.

DynamoDB Local keeps its items in a SQLite file of its own (one table of rows per DynamoDB table, each row's item in
`ObjectJSON` as DynamoDB's own JSON, binaries in base64; the tables' definitions in `dm`). That file is read here
directly with sqlite3: no Java and no port opened for the upgrade, seconds instead of a JVM's start and a scan over
HTTP. Its layout is DynamoDB Local's, not a published format, so every row is checked (its key columns against its
item's keys) and anything unexpected stops the start with a message rather than carrying over half the data.

Every table and item is written in one SQLite transaction together with a marker naming the source file, so a crash
midway leaves nothing and the next start imports again; with the marker there, the import never runs twice. The old
folder is then renamed `ddb.imported` (kept, never deleted: it is the day's previous record).
"""
from __future__ import annotations

import glob
import json
import os
import sqlite3
from pathlib import Path

from chalicelib.store import expressions as ex
from chalicelib.store.embedded import EmbeddedClient, _load


class ImportRefused(RuntimeError):
    pass


def ddblocal_files(folder: Path) -> list[Path]:
    return [Path(p) for p in sorted(glob.glob(str(folder / "*.db")))]


def read_tables(db_file: Path) -> list[tuple[dict, list[dict]]]:
    """[(definition for CreateTable, items)] of every table in a DynamoDB Local file."""
    conn = sqlite3.connect(str(db_file))
    try:
        tables = []
        for name, info in conn.execute("SELECT TableName, TableInfo FROM dm ORDER BY TableName"):
            info = json.loads(info)
            keys = info["UniqueIndexes"]
            key_schema = [{"AttributeName": k["DynamoDBAttribute"]["AttributeName"], "KeyType": k["KeyType"]} for k in keys]
            columns = [k["SQLiteColumnName"] for k in keys]
            if [k["KeyType"] for k in key_schema] != ["HASH", "RANGE"] or columns != ["hashKey", "rangeKey"]:
                raise ImportRefused(f"table {name} in {db_file}: keys {key_schema} are not this platform's")
            definition = {"TableName": name, "KeySchema": key_schema, "AttributeDefinitions": info["Attributes"],
                          "GlobalSecondaryIndexes": info.get("GSIList") or []}
            hash_name, range_name = (k["AttributeName"] for k in key_schema)
            items = []
            for hash_col, range_col, text in conn.execute(f'SELECT hashKey, rangeKey, ObjectJSON FROM "{name}"'):
                text = text.decode() if isinstance(text, bytes) else text
                item = _load(text)
                for col, attr in ((hash_col, hash_name), (range_col, range_name)):
                    col = col.decode() if isinstance(col, bytes) else col
                    if item.get(attr, {}).get("S") != col:
                        raise ImportRefused(f"table {name} in {db_file}: a row's key {col!r} is not its item's "
                                            f"{attr} {item.get(attr)!r} (an unknown DynamoDB Local layout)")
                items.append({k: ex.normalised(v) for k, v in item.items()})
            tables.append((definition, items))
        return tables
    except (sqlite3.DatabaseError, KeyError, ValueError) as exc:
        raise ImportRefused(f"{db_file} could not be read as DynamoDB Local's file: {exc}") from exc
    finally:
        conn.close()


def import_folder(folder: Path, store: EmbeddedClient) -> int | None:
    """Imports DynamoDB Local's files in `folder` unless already imported; returns the items carried over (None:
    nothing to do). Raises ImportRefused, leaving the store as it was, if a file is not what it should be."""
    files = ddblocal_files(folder)
    if not files:
        return None
    moved = 0
    for db_file in files:
        marker = f"ddblocal:{db_file.name}"
        if store.imported(marker):
            continue
        tables = read_tables(db_file)
        moved += store.import_tables(tables, marker)
    done = folder.with_name(folder.name + ".imported")
    if not done.exists():
        os.rename(folder, done)   # kept, never deleted; the marker alone already stops a second import
    return moved
