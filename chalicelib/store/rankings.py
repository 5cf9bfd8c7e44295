"""Rankings across events (issue 42): their records in the one table.

    RANKING#{rid} META                     the ranking (name, game, owner, points table, rating options), versioned
    RANKING#{rid} EV#{eid}                 an event it counts (who counted it, the event's date and size)
    RANKING#{rid} P#{pid}                  a player of it: name, club, rating (mu, sigma, tables) and every result
                                           ({eid: [place, points before decay]}), versioned
    RANKING#{rid} TABLE#{eid}#{s}#{n}#{t}  a confirmed table counted in the ratings: the version counted and each
                                           player's mu change (what a correction takes back)
    ORG#{oid}     RANKING#{rid}            the owner's list
    EVENTRANK#{eid} R#{rid}                which rankings count an event (the result hook and the seeding ask)
    PLAYER#{pid}  R#{rid}                  which rankings a player is in (the player page)

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
    return {**player_key(rid, p["player_id"]), "kind": "ranking_player", "name": p.get("name", ""),
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
        return [i["SK"][2:] for i in self.t.query(keys.player_rankings_partition(pid), "R#")]

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
        """Each player written on the version it was read at (0: new, with its pointer): a concurrent change to
        the same player fails the whole write, which the caller reads again and redoes."""
        ops = []
        for p in players:
            version = int(p.get("version", 0))
            if version:
                ops.append(Op.put(_player_item(rid, p), condition="version = :v", values={":v": version},
                                  on_fail=errors.VersionConflict))
            else:
                ops.append(Op.put(_player_item(rid, p), condition="attribute_not_exists(PK)",
                                  on_fail=errors.VersionConflict))
                ops.append(Op.put({**keys.player_ranking(p["player_id"], rid), "kind": "player_ranking"}))
        return ops

    def save_players(self, rid: str, players: list[dict]) -> None:
        """Players changed together (an event's results): 50 a transaction (a new one is two items)."""
        for batch in chunks(players, 50):
            self.t.transact(self._player_ops(rid, batch))

    # -- tables counted in the ratings
    def table_mark(self, rid: str, eid: str, stage: int, n: int, t: int) -> dict | None:
        item = self.t.get(table_key(rid, eid, stage, n, t))
        return {"version": int(item["version"]), "deltas": json.loads(item.get("deltas") or "{}")} if item else None

    def count_table(self, rid: str, ref: tuple[str, int, int, int], version: int, players: list[dict],
                    deltas: dict[str, float], seen_version: int | None) -> None:
        """The players' new ratings and the table's mark in one transaction, conditioned on the mark as it was read
        (absent, or the version seen): a table is counted once per version however often its event is handled."""
        mark = {**table_key(rid, *ref), "kind": "ranking_table", "version": version,
                "deltas": json.dumps(deltas, separators=(",", ":"))}
        cond = (Op.put(mark, condition="attribute_not_exists(PK)", on_fail=errors.VersionConflict)
                if seen_version is None else
                Op.put(mark, condition="version = :seen", values={":seen": seen_version}, on_fail=errors.VersionConflict))
        self.t.transact([cond, *self._player_ops(rid, players)])

    # -- rebuild
    def replace_all(self, rid: str, players: list[dict], marks: dict[tuple, tuple[int, dict]]) -> None:
        """A rebuild's result: every player and table mark written again (batch writes: a rebuild is not one
        transaction; docs/rankings.md), then those no longer there removed."""
        old = {i["SK"] for i in self.t.query(_ranking(rid), PLAYER_PREFIX, projection="SK")}
        old |= {i["SK"] for i in self.t.query(_ranking(rid), TABLE_PREFIX, projection="SK")}
        items = [_player_item(rid, {**p, "version": 0}) for p in players]
        items += [{**table_key(rid, *ref), "kind": "ranking_table", "version": v,
                   "deltas": json.dumps(d, separators=(",", ":"))} for ref, (v, d) in marks.items()]
        items += [{**keys.player_ranking(p["player_id"], rid), "kind": "player_ranking"} for p in players]
        keep = {i["SK"] for i in items if i["PK"] == _ranking(rid)}
        self._batch([{"PutRequest": {"Item": to_item(i)}} for i in items])
        self._batch([{"DeleteRequest": {"Key": to_item({"PK": _ranking(rid), "SK": sk})}} for sk in old - keep])

    def _batch(self, requests: list[dict], writers: int = 4) -> None:
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


class _Counted(errors.DomainError):
    """The event was counted already (internal)."""
