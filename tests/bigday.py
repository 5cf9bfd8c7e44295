"""A 10,000-entry event (万人赛) for tests and benches: entries written in bulk, results of every table of a round
scored by the engine, and a recorder of every item the store writes (its size as DynamoDB counts it)."""
from __future__ import annotations

import random
import threading
from datetime import date, datetime, UTC

ORGANISER = "org-big"


def seed_event(repos, clock, n: int, *, stages: list[dict] | None = None, game: str = "guandan",
               entry: str = "pair", name: str = "万人掼蛋公开赛", named=None):
    """A tournament with one event of n confirmed, checked-in entries; returns (tournament, event, organiser).
    `named(i)`: the i-th entry's (name, members' names), else 第{i+1}队 of 甲{i} and 乙{i}."""
    from chalicelib.ids import new_id
    from chalicelib.models import Entry, Event, EventConfig, Member, Organiser, Tournament
    from chalicelib.store.entries import entry_item, roster_copy_items

    organiser = Organiser(id=ORGANISER, name="联合会", created_at=clock())
    t = Tournament(id=new_id(), organiser_id=organiser.id, name="全国掼蛋大赛", venue="南宁", timezone="Asia/Shanghai",
                   currency="CNY", starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 13), created_at=clock())
    repos.tournaments.create(t)
    cfg = EventConfig.model_validate({"name": name, "game": game, "entry": entry, "capacity": n,
                                      "stages": stages or [{"format": "swiss", "rounds": 9,
                                                            "scoring": {"method": "match_points"}}]})
    ev = Event(id=new_id(), tournament_id=t.id, organiser_id=organiser.id, config=cfg, created_at=clock())
    repos.events.create(ev)
    entries = []
    for i in range(n):
        team, names = named(i) if named else (f"第{i + 1}队", [f"甲{i}", f"乙{i}"][:2 if entry == "pair" else 1])
        entries.append(Entry(id=new_id(), event_id=ev.id, tournament_id=t.id, name=team,
                             club=f"商会{i % 97}", members=[Member(name=m) for m in names], status="confirmed",
                             checked_in=True, created_at=clock()))
    repos.rounds._batch_put([*map(entry_item, entries), *roster_copy_items(entries)])   # as registrations write them
    repos.table.update({"PK": f"EVENT#{ev.id}", "SK": "COUNTERS"}, "SET taken = :n, confirmed = :n",
                       values={":n": n})
    return t, ev, organiser


def results_for_round(repos, event, n: int, *, seed: int = 1, leave: frozenset[int] = frozenset()) -> int:
    """Every table of round n confirmed with an engine-scored result (levels drawn at random), written in bulk
    as a day's result entry would leave them; returns the number of tables. The tables numbered in `leave` are left
    as they are (a result still to come through the service)."""
    from chalicelib.engine.games import game
    from chalicelib.engine.types import Side
    state = repos.rounds.state_head(event.id)
    ref = next(r for r in state["rounds"] if r["n"] == n)
    _, tables = repos.rounds.get_round(event.id, ref["stage"], n)
    rules, scoring = game(event.config.game), event.config.stages[ref["stage"]].scoring
    rng = random.Random(seed * 1000 + n)
    done = []
    for t in tables:
        if t["number"] in leave:
            continue
        a, b = (s["entry_id"] for s in t["sides"])
        la, lb = rng.randint(2, 14), rng.randint(2, 14)
        if la == lb:
            la = 14 if lb < 14 else 13
        score = rules.score({"final": {"levels": {a: la, b: lb}}}, [Side(a, tuple(t["sides"][0]["seats"])),
                                                                     Side(b, tuple(t["sides"][1]["seats"]))], scoring)
        done.append({**t, "status": "confirmed", "version": t["version"] + 2, "points": score.points,
                     "outcome": score.outcome, "winner": score.winner, "details": {}})
    # as results are written: each table's own item (keys.table_item), the round's rev moved
    repos.rounds._batch_put(repos.rounds.written_items(event.id, ref["stage"], n, done))
    repos.table.update({"PK": f"EVENT#{event.id}", "SK": f"ROUND#{ref['stage']}#{n:03d}"}, "ADD rev :one",
                       values={":one": 1})
    return len(tables)


class ItemSizes:
    """Every item put by this process's DynamoDB client (PutItem, BatchWriteItem and the embedded store's items
    alike, TransactWriteItems), sized. `defer`: a call is only noted as it goes, its items sized when `largest` or
    `count` is read or `settle()` called — a bench calls it after each timed part, so that its timed parts do not
    pay for its own bookkeeping (~0.3 s of a 100,000-entry draw's CPU) and the calls' items are not kept long."""

    def __init__(self, defer: bool = False):
        self._largest: tuple[int, str] = (0, "")
        self._count = 0
        self._noted: list[dict] = []
        self._lock = threading.Lock()
        self._defer = defer

    def attach(self, client) -> ItemSizes:
        for op in ("PutItem", "BatchWriteItem", "TransactWriteItems"):
            client.meta.events.register(f"provide-client-params.dynamodb.{op}", self._seen)
        return self

    def _seen(self, params, **_):
        with self._lock:
            self._noted.append(params)
        if not self._defer:
            self.settle()

    @property
    def largest(self) -> tuple[int, str]:
        self.settle()
        return self._largest

    @property
    def count(self) -> int:
        self.settle()
        return self._count

    def settle(self) -> None:
        """Sizes the items of the calls noted since the last time."""
        from chalicelib.store.parts import item_size
        with self._lock:   # the writers' threads size their own calls at once when not deferred
            noted, self._noted = self._noted, []
            for params in noted:
                for item in _items_put(params):
                    self._count += 1
                    bound = _size_bound(item)
                    if bound is not None and bound <= self._largest[0]:
                        continue   # cannot be the largest: not counted exactly (a 100,000-entry draw puts 102,500 items)
                    size = item_size(item)
                    if size > self._largest[0]:
                        self._largest = (size, item["SK"]["S"])


def _items_put(params: dict):
    if "Item" in params:
        yield params["Item"]
    for reqs in params.get("RequestItems", {}).values():
        yield from (r["PutRequest"]["Item"] for r in reqs if "PutRequest" in r)
    if "Fills" in params:   # the embedded store's items alike: a template's slots filled
        template = params["Template"]
        slots = [(k, next(iter(v))) for k, v in template.items() if None in v.values()]
        for fill in params["Fills"]:
            yield {**template, **{k: {t: x} for (k, t), x in zip(slots, fill)}}
    for op in params.get("TransactItems", []):
        if "Put" in op:
            yield op["Put"]["Item"]


def _size_bound(item: dict) -> int | None:
    """At least an item's size as DynamoDB counts it, for an item of strings and numbers (None for any other): a
    character is at most 4 bytes in UTF-8, a number at most 21."""
    total = 0
    for k, v in item.items():
        if "S" in v:
            total += 4 * (len(k) + len(v["S"]))
        elif "N" in v:
            total += 4 * len(k) + 21
        else:
            return None
    return total


def largest_stored(repos) -> tuple[int, str]:
    """The largest item in the table now (a scan): catches items grown by updates too."""
    from chalicelib.store.dynamo import client
    from chalicelib.store.parts import item_size
    best, kwargs = (0, ""), {"TableName": repos.table.name}
    while True:
        resp = client().scan(**kwargs)
        for item in resp["Items"]:
            best = max(best, (item_size(item), item["SK"]["S"]))
        if "LastEvaluatedKey" not in resp:
            return best
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]


def utc(*a) -> datetime:
    return datetime(*a, tzinfo=UTC)
