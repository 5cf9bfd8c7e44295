"""Rankings across events (issue 42): their records in the one table.

    RANKING#{rid} META                     the ranking (name, game, owner, points table, rating options), versioned
    RANKING#{rid} EV#{eid}                 an event it counts (who counted it, the event's date and size)
    RANKING#{rid} P#{pid}                  a player of it: name, club, rating (mu, sigma, tables) and every result
                                           ({eid: [place, points before decay]}), versioned
    RANKING#{rid} TABLE#{eid}#{s}#{n}#{t}  a confirmed table counted in the ratings: the version counted and each
                                           player's mu change (what a correction takes back)
    RANKING#{rid} TABLES#{eid}#{s}#{n}#{k} a rebuild's marks, 200 tables an item; a table's own TABLE# item, once
                                           counted again, stands before its pack's
    ORG#{oid}     RANKING#{rid}            the owner's list
    EVENTRANK#{eid} R#{rid}                which rankings count an event (the result hook and the seeding ask)
    GSI1 PLAYER#{pid} R#{rid}              on each player item: which rankings a player is in (the player page)

A player item is small (a result is ~40 bytes: a thousand events stay under 100 KB); a ranking of 100,000 players
is 100,000 items, read by one query when it is published or rebuilt.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

from .. import errors
from . import keys
from .dynamo import Op, Table, chunks, client, to_item

TABLE_PREFIX, PLAYER_PREFIX, EVENT_PREFIX = keys.RANKING_TABLE_PREFIX, keys.RANKING_PLAYER_PREFIX, keys.RANKING_EVENT_PREFIX
meta_key, event_key, player_key, table_key = keys.ranking, keys.ranking_event, keys.ranking_player, keys.ranking_table
_ranking = keys.ranking_partition


def _player_item(rid: str, p: dict) -> dict:
    return {**player_key(rid, p["player_id"]), **keys.player_ranking_index(p["player_id"], rid), "kind": "ranking_player", "name": p.get("name", ""),
            "club": p.get("club", ""), "mu": str(p["mu"]), "sigma": str(p["sigma"]), "tables": int(p.get("tables", 0)),
            "results": json.dumps(p.get("results") or {}, ensure_ascii=False, separators=(",", ":")),
            "version": int(p.get("version", 0)) + 1}


def _player(item: dict) -> dict:
    return {"player_id": item["SK"][len(PLAYER_PREFIX):], "name": item.get("name", ""), "club": item.get("club", ""),
            "mu": float(item["mu"]), "sigma": float(item["sigma"]), "tables": int(item.get("tables", 0)),
            "results": json.loads(item.get("results") or "{}"), "version": int(item.get("version", 0))}


class RankingRepo:
    def __init__(self, table: Table):
        self.t = table

    # -- the ranking and its events
    def create(self, ranking: dict) -> None:
        self.t.transact([
            Op.put({**meta_key(ranking["id"]), "kind": "ranking", "organiser_id": ranking["organiser_id"],
                    "data": json.dumps(ranking, ensure_ascii=False), "version": 1},
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            Op.put({**keys.organiser_ranking(ranking["organiser_id"], ranking["id"]), "kind": "org_ranking",
                    "ranking_id": ranking["id"], "name": ranking["name"]}),
        ])

    def get(self, rid: str) -> dict | None:
        item = self.t.get(meta_key(rid))
        return json.loads(item["data"]) if item else None

    def for_organiser(self, oid: str) -> list[str]:
        return [i["ranking_id"] for i in self.t.query(keys.organiser_partition(oid), "RANKING#")]

    def add_event(self, rid: str, counted: dict) -> bool:
        """Counts an event (once: False if it was counted already)."""
        try:
            self.t.transact([
                Op.check(meta_key(rid), "attribute_exists(PK)", on_fail=errors.NotFound),
                Op.put({**event_key(rid, counted["event_id"]), "kind": "ranking_event",
                        "data": json.dumps(counted, ensure_ascii=False)},
                       condition="attribute_not_exists(PK)", on_fail=_Counted),
                Op.put({**keys.event_ranking(counted["event_id"], rid), "kind": "event_ranking", "ranking_id": rid}),
            ])
        except _Counted:
            return False
        return True

    def events(self, rid: str) -> list[dict]:
        return [json.loads(i["data"]) for i in self.t.query(_ranking(rid), EVENT_PREFIX)]

    def rankings_of_event(self, eid: str) -> list[str]:
        return [i["ranking_id"] for i in self.t.query(keys.event_rankings_partition(eid), "R#")]

    def rankings_of_player(self, pid: str) -> list[str]:
        return [i["GSI1SK"][2:] for i in self.t.query(keys.player_rankings_partition(pid), "R#", index="GSI1")]

    # -- players
    def players(self, rid: str) -> list[dict]:
        return [_player(i) for i in self.t.query(_ranking(rid), PLAYER_PREFIX)]

    def players_by_id(self, rid: str, pids: list[str]) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for batch in chunks(list(dict.fromkeys(pids)), 100):
            for item in self.t.get_many([player_key(rid, p) for p in batch]):
                if item:
                    p = _player(item)
                    out[p["player_id"]] = p
        return out

    def _player_ops(self, rid: str, players: list[dict]) -> list[Op]:
        """Each player written on the version it was read at (0: new): a concurrent change to the same player fails
        the whole write, which the caller reads again and redoes."""
        ops = []
        for p in players:
            version = int(p.get("version", 0))
            if version:
                ops.append(Op.put(_player_item(rid, p), condition="version = :v", values={":v": version},
                                  on_fail=errors.VersionConflict))
            else:
                ops.append(Op.put(_player_item(rid, p), condition="attribute_not_exists(PK)",
                                  on_fail=errors.VersionConflict))
        return ops

    def save_players(self, rid: str, players: list[dict]) -> None:
        """Players changed together (an event's results): 100 a transaction."""
        for batch in chunks(players, 100):
            self.t.transact(self._player_ops(rid, batch))

    # -- tables counted in the ratings
    def table_mark(self, rid: str, eid: str, stage: int, n: int, t: int) -> dict | None:
        """The version counted and the mu changes of a table: its own item, else a rebuild's pack (`packed`)."""
        own, pack = self.t.get_many([table_key(rid, eid, stage, n, t), keys.ranking_table_pack(rid, eid, stage, n, t)])
        if own:
            return {"version": int(own["version"]), "deltas": json.loads(own.get("deltas") or "{}")}
        entry = json.loads(pack["marks"]).get(str(t)) if pack else None
        return {"version": entry[0], "deltas": entry[1], "packed": True} if entry else None

    def count_table(self, rid: str, ref: tuple[str, int, int, int], version: int, players: list[dict],
                    deltas: dict[str, float], seen: dict | None) -> None:
        """The players' new ratings and the table's mark in one transaction, conditioned on the mark as it was read
        (`seen`: absent or in a pack → no own item yet; else its version): a table is counted once per version
        however often its event is handled."""
        mark = {**table_key(rid, *ref), "kind": "ranking_table", "version": version,
                "deltas": json.dumps(deltas, separators=(",", ":"))}
        cond = (Op.put(mark, condition="attribute_not_exists(PK)", on_fail=errors.VersionConflict)
                if seen is None or seen.get("packed") else
                Op.put(mark, condition="version = :seen", values={":seen": seen["version"]}, on_fail=errors.VersionConflict))
        self.t.transact([cond, *self._player_ops(rid, players)])

    # -- rebuild
    def replace_all(self, rid: str, players: list[dict], marks: dict[tuple, tuple[int, dict]]) -> None:
        """A rebuild's result: every player and table mark written again (batch writes: a rebuild is not one
        transaction; docs/rankings.md), then those no longer there removed."""
        old = {i["SK"] for i in self.t.query(_ranking(rid), PLAYER_PREFIX, projection="SK")}
        old |= {i["SK"] for i in self.t.query(_ranking(rid), TABLE_PREFIX, projection="SK")}
        old |= {i["SK"] for i in self.t.query(_ranking(rid), keys.RANKING_PACK_PREFIX, projection="SK")}
        packs: dict[str, dict] = {}
        for (eid, stage, n, t), (v, d) in marks.items():
            key = keys.ranking_table_pack(rid, eid, stage, n, t)
            packs.setdefault(key["SK"], {**key, "kind": "ranking_tables", "marks": {}})["marks"][str(t)] = [v, d]
        items = [_player_item(rid, {**p, "version": 0}) for p in players]
        items += [{**pack, "marks": json.dumps(pack["marks"], separators=(",", ":"))} for pack in packs.values()]
        keep = {i["SK"] for i in items}
        self._batch([{"PutRequest": {"Item": _plain_item(i)}} for i in items])
        self._batch([{"DeleteRequest": {"Key": _plain_item({"PK": _ranking(rid), "SK": sk})}} for sk in old - keep])

    def _batch(self, requests: list[dict], writers: int = 16) -> None:
        batches = list(chunks(requests, 25))
        if len(batches) <= 1:
            for b in batches:
                self._write_batch(b)
            return
        with ThreadPoolExecutor(max_workers=min(writers, len(batches))) as pool:
            for done in [pool.submit(self._write_batch, b) for b in batches]:
                done.result()

    def _write_batch(self, batch: list[dict]) -> None:
        request = {self.t.name: batch}
        for attempt in range(10):
            request = client().batch_write_item(RequestItems=request).get("UnprocessedItems") or {}
            if not request:
                return
            time.sleep(0.01 * 2 ** attempt)
        raise errors.ServiceUnavailable()


def _plain_item(item: dict) -> dict:
    """A rebuild's items (strings and integers only) in DynamoDB's wire form, without boto3's general serializer:
    at 250,000 items it was most of a rebuild's writing time."""
    out = {}
    for k, v in item.items():
        if isinstance(v, str):
            out[k] = {"S": v}
        elif isinstance(v, int) and not isinstance(v, bool):
            out[k] = {"N": str(v)}
        else:
            out[k] = to_item({k: v})[k]
    return out


class _Counted(errors.DomainError):
    """The event was counted already (internal)."""
