"""Entries, payments and idempotency records. Every state change of an entry is one transaction
that also moves the event's counters, so `taken` always equals the entries holding a place."""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from collections.abc import Iterable
from typing import NamedTuple

from pydantic import TypeAdapter

from .. import errors
from ..models import Entry, Payment
from ..phones import MAINLAND_MOBILE
from . import keys
from .dynamo import Op, Table

COUNTERS = ("taken", "confirmed", "held", "waitlisted")
TRANSACTION_ACTIONS = 100   # DynamoDB's most actions in one TransactWriteItems
ROSTER_SLICE = 1_000   # entries a query of EntryRepo.roster reads, when the ids are known (about a 1 MB page)
ROSTER_SPANS = 8       # spans of a roster read whose ids are not known yet, where they are not ULIDs
LIST_CHUNK = 500   # entries EntryRepo.list parses (and compacts) at once
_SHARDED: dict[str, bool] = {}   # event id → whether its counters are sharded (fixed when the event is created)
_ROSTER_COPIED: set[str] = set()   # events whose entries all have their roster copies (the flag is never unset)


@functools.cache
def _entry_list() -> TypeAdapter:
    """list[Entry]'s validator, built at the first roster read: building it at import built Entry's schema,
    a cold start's cost for every request that never reads a roster."""
    return TypeAdapter(list[Entry])


def _compact(entries: list, sets: dict | None = None, words: dict | None = None) -> list:
    """An event's entries as parsed, made smaller in place (issue 43: a publisher of 100,000 entries held 5.6 KB
    an entry, 2 KB of it each model's own set of the 31 field names it was given): the models that were given the
    same fields share one set, their members' too, and the ids and words every entry repeats are one string each.
    Nothing here dumps `exclude_unset`; a field set later on a shared set's model is one each of them had anyway.
    `sets`, `words`: the memos of earlier calls, for entries compacted a chunk at a time."""
    sets = {} if sets is None else sets
    words = {} if words is None else words
    for e in entries:
        object.__setattr__(e, "__pydantic_fields_set__", sets.setdefault(frozenset(e.__pydantic_fields_set__),
                                                                          e.__pydantic_fields_set__))
        fields = e.__dict__
        for k in ("event_id", "tournament_id", "currency", "payment_state", "status", "manage_token_hash"):
            v = fields.get(k)
            if isinstance(v, str):
                fields[k] = words.setdefault(v, v)
        for m in e.members:
            object.__setattr__(m, "__pydantic_fields_set__", sets.setdefault(frozenset(m.__pydantic_fields_set__),
                                                                              m.__pydantic_fields_set__))
    return entries


@dataclass(frozen=True)
class Expect:
    """What a registration assumed when it wrote without reading first: the event's config version, and (for a
    waitlisted entry) that every place was taken."""
    config_version: int
    full: bool = False
    before_draw: bool = False   # registration closes at the first draw: the write fails once the event is drawn
    before_late_close: bool = False   # with late entries on: fails once the last late-entry round is drawn


class CountersMoved(errors.Conflict):
    """The event's counters were not as the writer assumed (a place freed or taken, or the config changed);
    carries them as they are, so the caller can decide again without reading."""
    code = "conflict"

    def __init__(self, counters: dict):
        super().__init__("The event changed meanwhile; try again.")
        self.counters = counters

    @classmethod
    def from_item(cls, item: dict) -> CountersMoved:
        return cls(counters_of(item))


def counters_of(item: dict) -> dict:
    """One counters item (or shard) as numbers (an event never edited has config version 1); `shard` says which."""
    from .counters import shard_no
    return ({k: item.get(k, 0) for k in (*COUNTERS, "cap")} | {"config_version": item.get("config_version", 1)}
            | {"drawn": bool(item.get("drawn")), "late_closed": bool(item.get("late_closed")), "shard": shard_no(item)})


class IdempotentReplay(errors.Conflict):
    """The Idempotency-Key was seen before: the caller returns the first answer."""
    code = "idempotent_replay"


def _status_counters(entry: Entry | None) -> dict[str, int]:
    if entry is None:
        return {}
    return {"confirmed": {"taken": 1, "confirmed": 1},
            "pending_payment": {"taken": 1, "held": 1},
            "waitlisted": {"waitlisted": 1}}.get(entry.status, {})


def counter_delta(before: Entry | None, after: Entry | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, n in _status_counters(after).items():
        out[name] = out.get(name, 0) + n
    for name, n in _status_counters(before).items():
        out[name] = out.get(name, 0) - n
    return {k: v for k, v in out.items() if v}


@dataclass(frozen=True)
class RosterMember:
    gender: str | None = None


class Roster(NamedTuple):
    """What a draw or a close reads of each of an event's entries (EntryRepo.roster): a tenth of the bytes. A
    named tuple, read-only as a frozen dataclass was, made 100,000 at a time three to four times faster (a frozen
    dataclass sets each field through object.__setattr__: ~0.12 s of a 100,000-entry draw's and close's CPU)."""
    id: str
    status: str
    checked_in: bool
    name: str
    club: str
    members: tuple[RosterMember, ...] = ()


def roster_attr(entry: Entry) -> str:
    return json.dumps([entry.id, entry.status, entry.checked_in, entry.name, entry.club,
                       [m.gender for m in entry.members]], ensure_ascii=False, separators=(",", ":"))


def entry_item(entry: Entry) -> dict:
    item = {**keys.entry(entry.event_id, entry.id), "kind": "entry", "data": entry.model_dump_json(),
            "status": entry.status, "version": entry.version, "roster": roster_attr(entry)}
    if entry.status == "waitlisted" and entry.waitlist_key:
        item.update(keys.waitlist_index(entry.event_id, entry.waitlist_key))
    elif entry.status == "pending_payment" and entry.hold_expires_at:
        item.update(keys.hold_index(entry.hold_expires_at.strftime("%Y-%m-%dT%H:%M:%SZ"), entry.id))
    return item


ROSTER_ROW = "E#"   # a roster chunk's attribute holding one entry's row: "E#" + the entry's id


def roster_copy_ops(changes: Iterable[tuple[Entry | None, Entry]]) -> list[Op]:
    """The roster copies (keys.roster_chunk) of the entries, each (before, after) of one transaction, whose roster row
    is new or changes: one update per chunk item touched (DynamoDB takes one operation an item in a transaction),
    setting only those entries' own attributes — never the chunk rewritten from a read, so two writers of different
    entries of a chunk lose nothing (their transactions take turns on the item)."""
    by_chunk: dict[tuple[str, str], dict[str, str]] = {}
    for before, after in changes:
        row = roster_attr(after)
        if before is not None and roster_attr(before) == row:
            continue
        key = keys.roster_chunk(after.event_id, after.id)
        by_chunk.setdefault((key["PK"], key["SK"]), {})[ROSTER_ROW + after.id] = row
    ops = []
    for (pk, sk), rows in by_chunk.items():
        names = {"#kind": "kind", **{f"#r{i}": name for i, name in enumerate(rows)}}
        values = {":kind": "roster_chunk", **{f":r{i}": row for i, row in enumerate(rows.values())}}
        sets = ", ".join(f"#r{i} = :r{i}" for i in range(len(rows)))
        ops.append(Op.update({"PK": pk, "SK": sk}, f"SET #kind = :kind, {sets}", names=names, values=values))
    return ops


def roster_copy_items(entries: Iterable[Entry]) -> list[dict]:
    """The chunk items holding these entries' roster rows, whole: for writing a new event's entries in bulk (benches,
    tests; they replace any chunk item already there)."""
    items: dict[tuple[str, str], dict] = {}
    for e in entries:
        key = keys.roster_chunk(e.event_id, e.id)
        items.setdefault((key["PK"], key["SK"]), {**key, "kind": "roster_chunk"})[ROSTER_ROW + e.id] = roster_attr(e)
    return list(items.values())


def phone_hash(phone: str) -> str:
    import hashlib
    return hashlib.sha256(f"person:{phone}".encode()).hexdigest()[:32]


def _clash(eid: str) -> errors.DuplicateEntry:
    return errors.DuplicateEntry(
        "该手机号已在本项目报名，请用报名时得到的管理链接查看或修改；找不到链接请联系组委会报到台（按手机号查找）· "
        "This phone number is already registered in this event: use the manage link you got then; if it is "
        "lost, the organiser's desk finds the entry by phone.", {"event_id": eid})


def person_ops(entry: Entry) -> list[Op]:
    """The same person (phone) once per event: an item per member phone, written with the entry."""
    phones = sorted({m.phone for m in entry.members if m.phone})
    return [Op.put({**keys.person_in_event(entry.event_id, phone_hash(p)), "kind": "person", "entry_id": entry.id},
                   condition="attribute_not_exists(PK)", on_fail=lambda: _clash(entry.event_id)) for p in phones]


def legacy_person_keys(entry: Entry) -> list[dict]:
    """Where an entry stored before phones were normalised (issue 36) keeps its person item: under the number as
    typed then, a mainland mobile also as +86…. Not rewritten: the old entry still releases its own item."""
    return [keys.person_in_event(entry.event_id, phone_hash("+86" + p))
            for p in sorted({m.phone for m in entry.members if m.phone}) if MAINLAND_MOBILE.fullmatch(p)]


def release_person_ops(entry: Entry) -> list[Op]:
    """A cancelled or withdrawn entry frees its people to register again."""
    return [Op.delete(keys.person_in_event(entry.event_id, phone_hash(p)), condition="entry_id = :e",
                      values={":e": entry.id}, on_fail=errors.Conflict)
            for p in sorted({m.phone for m in entry.members if m.phone})]


# -- the phone index ("我的": every entry and registration of a phone, api.md v1.3 "Players"). Written in the entry's
# own transaction (created, merged, its roster's phones changed), so a player never misses an entry that exists.
def phone_hash_of(phone: str) -> str:
    """The keyed hash a phone is indexed (and a player keyed) by: installation.phone_hash, the one formula."""
    from ..installation import phone_hash as keyed
    return keyed(phone)


def _entry_phone_hashes(entry: Entry) -> set[str]:
    return {phone_hash_of(m.phone) for m in entry.members if m.phone}


def phone_entry_item(h: str, entry: Entry) -> dict:
    return {**keys.phone_entry(h, entry.id), "kind": "phone_entry", "entry_id": entry.id, "event_id": entry.event_id,
            "tournament_id": entry.tournament_id, **({"registration_id": entry.registration_id}
                                                     if entry.registration_id else {})}


def phone_registration_item(h: str, registration: dict) -> dict:
    return {**keys.phone_registration(h, registration["id"]), "kind": "phone_registration",
            "registration_id": registration["id"], "tournament_id": registration["tournament_id"]}


def phone_index_ops(entry: Entry, indexed: str | None = None) -> list[Op]:
    """`indexed`: a phone hash that already finds the entry (its day registration's contact, indexed by the
    registration: services/players.py lists every entry of a registration whose contact the phone is)."""
    return [Op.put(phone_entry_item(h, entry)) for h in sorted(_entry_phone_hashes(entry) - {indexed})]


def phone_index_moves(before: Entry, after: Entry) -> list[Op]:
    """A roster edit's phones: the index follows (a phone taken off no longer finds the entry)."""
    was, now = _entry_phone_hashes(before), _entry_phone_hashes(after)
    if was == now:
        return []
    return ([Op.delete(keys.phone_entry(h, before.id)) for h in sorted(was - now)]
            + [Op.put(phone_entry_item(h, after)) for h in sorted(now - was)])


def idempotency_item(eid: str, key_hash: str, entry_id: str, body_hash: str, expires_epoch: int) -> dict:
    return {**keys.idempotency(eid, key_hash), "kind": "idempotency", "entry_id": entry_id, "body_hash": body_hash,
            "expires_at": expires_epoch}


def payment_item(payment: Payment) -> dict:
    return {**keys.payment(payment.id), "kind": "payment", "data": payment.model_dump_json(),
            "state": payment.state, "version": payment.version, "entry_id": payment.entry_id,
            "event_id": payment.event_id}


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"   # ULIDs (ids.new_id): 26 of these, sorting as their numbers do
_ULID_LEN = 26


def _ulid_number(sk: str) -> int | None:
    """An entry key's id as the number its ULID spells, or None for an id that is not a ULID."""
    text = sk[len(keys.ENTRY_PREFIX):] if sk.startswith(keys.ENTRY_PREFIX) else ""
    if len(text) != _ULID_LEN or any(c not in _CROCKFORD for c in text):
        return None
    n = 0
    for c in text:
        n = n * 32 + _CROCKFORD.index(c)
    return n


def _entry_sk(n: int) -> str:
    digits = []
    for _ in range(_ULID_LEN):
        n, d = divmod(n, 32)
        digits.append(_CROCKFORD[d])
    return keys.ENTRY_PREFIX + "".join(reversed(digits))


def _between_ids(low: str, high: str) -> str | None:
    """An entry key halfway between two (by their ULIDs), or None when either is not a ULID or none lies between."""
    a, b = _ulid_number(low), _ulid_number(high)
    if a is None or b is None or b - a < 2:
        return None
    return _entry_sk((a + b) // 2)


def _spans_for(first: str, last: str, end: str) -> int:
    """How many spans to cut (last, end] into: as many as make each about two thirds of the first page's ULID
    width (a span read in one page, none cut again), ROSTER_SPANS where the ids are not ULIDs."""
    a, b, c = _ulid_number(first), _ulid_number(last), _ulid_number(end)
    if a is None or b is None or c is None or b <= a:
        return ROSTER_SPANS
    return max(2, min(64, -(-3 * (c - b) // (2 * (b - a)))))


def _spans(low: str, high: str, k: int) -> list[tuple[str, str]]:
    """[low, high] cut into k spans of equal ULID width (bounds shared: query_ranges keeps an item once); one span
    where the ids are not ULIDs."""
    a, b = _ulid_number(low), _ulid_number(high)
    if a is None or b is None or b - a < k:
        return [(low, high)]
    cuts = [low, *(_entry_sk(a + (b - a) * i // k) for i in range(1, k)), high]
    return list(zip(cuts, cuts[1:], strict=False))


class EntryRepo:
    def __init__(self, table: Table):
        self.t = table

    # -- reads
    def get(self, eid: str, entry_id: str) -> Entry | None:
        item = self.t.get(keys.entry(eid, entry_id))
        return Entry.model_validate_json(item["data"]) if item else None

    def entry_of_person(self, eid: str, phone: str) -> str | None:
        """The entry holding this phone's place in the event (person_ops), if any."""
        item = self.t.get(keys.person_in_event(eid, phone_hash(phone)))
        return item.get("entry_id") if item else None

    def find(self, entry_id: str) -> Entry | None:
        pointer = self.t.get(keys.entry_pointer(entry_id))
        return self.get(pointer["event_id"], entry_id) if pointer else None

    def get_many(self, eid: str, entry_ids: list[str], consistent: bool = True) -> list[Entry | None]:
        """`consistent=False`: half the read units, for what only shows them (a phone's view of its table's names)."""
        items = self.t.get_many([keys.entry(eid, x) for x in entry_ids], consistent=consistent) if entry_ids else []
        return [Entry.model_validate_json(i["data"]) if i else None for i in items]

    def list(self, eid: str) -> list[Entry]:
        """Every entry of the event, in id order: read by spans at once (see `roster`), only each item's `data`,
        parsed in one go (a publish of 10,000 entries: 2 s read one page after another and item by item)."""
        items = self._entry_items(eid, (), "data")
        adapter, out, sets, words = _entry_list(), [], {}, {}
        # parsed LIST_CHUNK at a time, each chunk's items let go once parsed (issue 43: one parse of 100,000 left
        # ~300 MB more of the publisher's memory in use than its models hold; in chunks it is also a little faster),
        # and each chunk compacted before the next is parsed: the field-name sets it lets go (~2 KB an entry) are
        # where the next chunk's models go. Compacted at the end, they were 100,000 holes between the models that
        # malloc could neither reuse nor give back (~70 MiB of 120 in use at 20,000 entries).
        for k in range(0, len(items), LIST_CHUNK):
            chunk = adapter.validate_json("[" + ",".join(i["data"]["S"] for i in items[k:k + LIST_CHUNK]) + "]")
            out.extend(_compact(chunk, sets, words))
            items[k:k + LIST_CHUNK] = [None] * len(items[k:k + LIST_CHUNK])
        return out

    def roster(self, eid: str, known: list[str] = ()) -> list[Roster]:
        """The event's entries as a draw needs them, in id order: from their roster copies (keys.roster_chunk, a few
        thousand small items under 16 keys of the event's own) where the event has them — every event created
        since, and older ones once store/migrations.copy_rosters has run. Else (the fallback) from the entry items,
        reading only each item's `roster` attribute (every write sets it: entry_item); items written before it
        existed are read whole instead. The key range is read by
        several queries at once (10,000 entries are ten 1 MB pages one after another otherwise): cut at `known`
        entry ids (a stage plan's) where given, else, past a first page of ROSTER_SLICE entries, into spans of ULID
        between its end and the last entry sized by that page's density (the first draw); a range that fills a page
        is cut again (Table.query_ranges)."""
        copied = self._roster_copies(eid)
        return copied if copied is not None else self.roster_of_entries(eid, known)

    def roster_of_entries(self, eid: str, known: list[str] = ()) -> list[Roster]:
        """The same read from the entry items (an event without copies; bench/big_event.py's reference)."""
        items = self._entry_items(eid, known, "roster")
        if all("roster" in i for i in items):   # one parse of them all: 10,000 small ones cost ten times more
            rows = json.loads("[" + ",".join(i["roster"]["S"] for i in items) + "]")
            return [Roster(e, st, ci, nm, cl, tuple(RosterMember(g) for g in gs)) for e, st, ci, nm, cl, gs in rows]
        return [Roster(e.id, e.status, e.checked_in, e.name, e.club, tuple(RosterMember(m.gender) for m in e.members))
                for e in self.list(eid)]

    def _roster_copies(self, eid: str) -> list[Roster] | None:
        """The roster from its copies (None: the event has none yet): the 16 keys read at once, every row parsed in
        one go. Strongly consistent, as the entries were read: a check-in answered before the draw is in it."""
        if not self._roster_copied(eid):
            return None
        from concurrent.futures import ThreadPoolExecutor
        pks = keys.roster_partitions(eid)
        with ThreadPoolExecutor(max_workers=len(pks)) as pool:
            pages = list(pool.map(lambda pk: self.t.query(pk, raw=True), pks))
        rows = json.loads("[" + ",".join(v["S"] for items in pages for item in items for k, v in item.items()
                                         if k.startswith(ROSTER_ROW)) + "]")
        rows.sort(key=lambda r: r[0])   # id order, as the entries' keys sort (code points order as UTF-8 bytes)
        members: dict[tuple, tuple[RosterMember, ...]] = {}   # a few kinds of genders: one tuple each, shared
        out = []
        for e, st, ci, nm, cl, gs in rows:
            genders = tuple(gs)
            kept = members.get(genders)
            if kept is None:
                kept = members[genders] = tuple(RosterMember(g) for g in genders)
            out.append(Roster(e, st, ci, nm, cl, kept))
        return out

    def _roster_copied(self, eid: str) -> bool:
        """Whether every entry of the event has its roster copy: `roster_copies` on its counters item, set when it
        is created (EventRepo.create) or by the migration once it has copied them (never unset: remembered)."""
        if eid in _ROSTER_COPIED:
            return True
        item = self.t.get(keys.event_counters(eid), projection=["roster_copies"])
        if item and item.get("roster_copies"):
            _ROSTER_COPIED.add(eid)
            return True
        return False

    def _entry_items(self, eid: str, known: list[str], projection: str) -> list[dict]:
        """The event's entry items (raw, only `projection` and SK), in key order, read by several queries at once."""
        pk = keys.event_partition(eid)
        low, high = keys.ENTRY_PREFIX, keys.ENTRY_PREFIX[:-1] + "$"   # ENTRY# … ENTRY$ is begins_with(ENTRY#)
        ids = sorted(set(known))
        cuts = [keys.entry(eid, ids[k])["SK"] for k in range(ROSTER_SLICE, len(ids), ROSTER_SLICE)]
        if cuts:
            return self.t.query_ranges(pk, list(zip([low, *cuts], [*cuts, high], strict=True)), _between_ids, projection=projection)
        items, last = self.t.query_page(pk, low, high, projection=projection, limit=ROSTER_SLICE)
        if last is not None:
            tail = self.t.query(pk, keys.ENTRY_PREFIX, forward=False, limit=1, raw=True, projection="SK")
            end = tail[0]["SK"]["S"] if tail else high
            k = _spans_for(items[0]["SK"]["S"], last, end)
            spans = _spans(last, end, k) + [(end, high)]
            rest = self.t.query_ranges(pk, spans, _between_ids, projection=projection, workers=min(16, k))
            items = [*items, *(i for i in rest if i["SK"]["S"] != last)]   # the page's last item begins the spans
        return items

    def any_for_event(self, eid: str) -> bool:
        """Whether the event has any entry at all (partner seekers hold no place, so the counters miss them)."""
        return bool(self.t.query(keys.event_partition(eid), keys.ENTRY_PREFIX, limit=1))

    def waitlist(self, eid: str, limit: int | None = None) -> list[str]:
        """Entry ids in waiting order (from the sparse index: may lag a moment; callers re-check)."""
        items = self.t.query(keys.waitlist_partition(eid), index="GSI1", limit=limit)
        return [i["SK"].split("#", 1)[1] for i in items]

    def waitlist_position(self, eid: str, waitlist_key: str) -> int:
        return self.t.count(keys.waitlist_partition(eid), waitlist_key) + 1

    def expired_holds(self, now_iso: str, limit: int = 200) -> list[tuple[str, str]]:
        items = self.t.query(keys.HOLDS_PARTITION, index="GSI1", upper=now_iso + "~", limit=limit)
        return [(i["PK"].split("#", 1)[1], i["SK"].split("#", 1)[1]) for i in items]

    def counters(self, eid: str) -> dict:
        """The event's counters, summed over its shards when it has them."""
        c = self.shard_counters(eid)
        return {k: c[k] for k in (*COUNTERS, "cap", "config_version")}

    def shard_counters(self, eid: str) -> dict:
        """The same, with each shard's (k, taken, cap) in `shards`."""
        from .counters import read_items, summed
        return summed(read_items(self.t, eid))

    def with_place_shard(self, entry: Entry) -> Entry:
        """The entry on a counters shard that has a free place (its own when it has one): for writes that take a
        place outside the registration rush (promotion, a late payment, partners joined, a day's registration).
        An event with one counters item reads nothing."""
        from .counters import free_shards
        if not self._sharded(entry.event_id):
            return entry
        free = free_shards(self.shard_counters(entry.event_id))
        if not free or entry.shard in free:
            return entry
        import random
        return entry.model_copy(update={"shard": random.choice(free)})

    def _sharded(self, eid: str) -> bool:
        hit = _SHARDED.get(eid)
        if hit is None:
            main = self.t.get(keys.event_counters(eid)) or {}
            hit = _SHARDED[eid] = int(main.get("shards", 1)) > 1   # chosen at creation, never changes
        return hit

    def idempotency(self, scope: str, key_hash: str) -> dict | None:
        return self.t.get(keys.idempotency(scope, key_hash))

    # -- writes
    def _counter_op(self, eid: str, delta: dict[str, int], take_place: bool,
                    expect: Expect | None = None, shard: int = 0) -> Op | None:
        if not delta:
            return None
        names = {f"#{k}": k for k in delta}
        sets = ", ".join(f"#{k} = #{k} + :{k}" for k in delta)
        values: dict = {f":{k}": v for k, v in delta.items()}
        values[":one"] = 1
        conditions = ["attribute_exists(PK)"]
        if take_place and delta.get("taken", 0) > 0:
            names["#cap"] = "cap"
            names["#taken"] = "taken"
            conditions = ["#taken < #cap"]
        elif expect and expect.full:
            names["#cap"] = "cap"
            names["#taken"] = "taken"
            conditions = ["#taken >= #cap"]
        on_fail_item = None
        if expect:
            names["#cv"] = "config_version"
            values[":cv"] = expect.config_version
            # an event never edited has no config_version on its counters: its config is version 1
            conditions.append("(#cv = :cv OR attribute_not_exists(#cv))" if expect.config_version == 1 else "#cv = :cv")
            if expect.before_draw:
                names["#drawn"] = "drawn"
                conditions.append("attribute_not_exists(#drawn)")
            if expect.before_late_close:
                names["#late_closed"] = "late_closed"
                conditions.append("attribute_not_exists(#late_closed)")
            on_fail_item = lambda item: CountersMoved(counters_of(item) | {"event_id": eid})   # noqa: E731
        return Op.update(keys.counter_shard(eid, shard), f"SET {sets}, cversion = cversion + :one", names=names,
                         values=values, condition=" AND ".join(conditions),
                         on_fail=lambda: errors.EventFull("The event has no place left.", {"event_id": eid}),
                         on_fail_item=on_fail_item)

    def _refuse_legacy_persons(self, entries: Iterable[Entry]) -> None:
        """The person items an earlier version keyed under the number as typed (legacy_person_keys), read before a
        day's transaction instead of checked in it (two actions an entry of its 100): nothing writes such an item
        any more, so one absent now stays absent until the write, and one present refuses the entry as a check
        did (a clash, naming its event)."""
        wanted = [(entry.event_id, key) for entry in entries for key in legacy_person_keys(entry)]
        for k in range(0, len(wanted), TRANSACTION_ACTIONS):   # BatchGetItem's most keys
            batch = wanted[k:k + TRANSACTION_ACTIONS]
            found = self.t.get_many([key for _, key in batch])
            held = next((eid for (eid, _), item in zip(batch, found, strict=True) if item is not None), None)
            if held is not None:
                raise _clash(held)

    def _entry_ops(self, entry: Entry, expect: Expect | None = None, indexed: str | None = None,
                   legacy_read: bool = False) -> list[Op]:
        """`legacy_read`: the person items keyed as typed before issue 36 are read before the transaction
        (_refuse_legacy_persons, a day's registration) rather than checked in it (one write alone: issue 16)."""
        ops: list[Op] = [Op.put(entry_item(entry), condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
                         Op.put({**keys.entry_pointer(entry.id), "kind": "entry_pointer", "event_id": entry.event_id},
                                condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry)]
        counter = self._counter_op(entry.event_id, counter_delta(None, entry), take_place=True, expect=expect,
                                   shard=entry.shard)
        if counter:
            ops.append(counter)
        else:  # no counter moves (partner seekers); still require the event to exist
            ops.append(Op.check(keys.event_counters(entry.event_id), "attribute_exists(PK)", on_fail=errors.NotFound))
        ops.extend(person_ops(entry))
        if not legacy_read:
            ops.extend(Op.check(k, "attribute_not_exists(PK)", on_fail=lambda: _clash(entry.event_id))
                       for k in legacy_person_keys(entry))
        ops.extend(phone_index_ops(entry, indexed))
        return ops

    def create_many(self, entries: list[Entry], registration: dict, *, idem: dict | None = None,
                    payment: Payment | None = None, expect: dict[str, Expect] | None = None,
                    extra: Iterable[Op] = ()) -> None:
        """A day's registration: every entry (places under each event's condition), the registration record,
        its idempotency record and the one payment — all or nothing. `expect`: per event id, what its counters
        must still say (config version, not drawn): else CountersMoved, naming the event."""
        # the idempotency record first: a retry fails on it before anything else (its answer is the first one's)
        ops: list[Op] = [Op.put(idem, condition="attribute_not_exists(PK)", on_fail=IdempotentReplay)] if idem else []
        contact = (registration.get("contact") or {}).get("phone")
        # The contact's phone finds the registration's entries through the registration's own index item: their
        # entries need none of their own for it (one action an entry less where the contact plays)
        contact_hash = phone_hash_of(contact) if contact else None
        listed = {i["entry_id"] for i in registration.get("items") or []}
        for entry in entries:
            ops.extend(self._entry_ops(self.with_place_shard(entry) if entry.holds_place else entry,
                                       (expect or {}).get(entry.event_id),
                                       indexed=contact_hash if entry.id in listed else None, legacy_read=True))
        ops.extend(roster_copy_ops((None, e) for e in entries))   # entries of one chunk in one update
        ops.append(Op.put({**keys.registration(registration["id"]), "kind": "registration", **registration},
                          condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry))
        if contact_hash:
            ops.append(Op.put(phone_registration_item(contact_hash, registration)))
        if payment:
            ops.append(Op.put(payment_item(payment), condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry))
        ops.extend(extra)   # its messages' outbox items (keyed by this new registration: never there before)
        if len(ops) > TRANSACTION_ACTIONS:   # DynamoDB refuses the whole transaction: say so, not a 500
            raise errors.RegistrationTooLarge(details={"events": len({e.event_id for e in entries}),
                                                       "actions": len(ops), "limit": TRANSACTION_ACTIONS})
        self._refuse_legacy_persons(entries)
        self.t.transact(ops)

    def registration(self, reg_id: str) -> dict | None:
        item = self.t.get(keys.registration(reg_id))
        return {k: v for k, v in item.items() if k not in ("PK", "SK", "kind")} if item else None

    def replace_registration(self, record: dict) -> None:
        """A registration's record rewritten whole (erasure of its contact's phone); it must exist."""
        self.t.put({**keys.registration(record["id"]), "kind": "registration", **record},
                   condition="attribute_exists(PK)", on_fail=errors.NotFound)

    def erase_contacts(self, before: Entry, after: Entry) -> None:
        """`after`: `before` without its contact data (domain/contacts.py). The phone index follows (transition)
        and the person items that still hold a place for these phones in the event go with them."""
        mine = [keys.person_in_event(before.event_id, phone_hash(p)) for p in sorted({m.phone for m in before.members
                                                                                   if m.phone})]
        owned = [k for k, item in zip(mine, self.t.get_many(mine) if mine else []) if item and item.get("entry_id") == before.id]
        self.transition(before, after, take_place=False, extra=[
            Op.delete(k, condition="entry_id = :e", values={":e": before.id}, on_fail=errors.VersionConflict) for k in owned])

    def update_registration(self, reg_id: str, expr: str, values: dict) -> None:
        self.t.update(keys.registration(reg_id), expr, values=values)

    def create(self, entry: Entry, *, idem: dict | None = None, payment: Payment | None = None,
               expect: Expect | None = None, extra: Iterable[Op] = ()) -> None:
        """Writes a new entry with its counters, pointer, idempotency record and payment, and `extra` (its
        messages' outbox items): all or nothing.
        `expect`: the event's config version the caller worked from and, for a waitlisted entry, that the event
        is full; when the counters say otherwise nothing is written and `CountersMoved` carries them."""
        # the idempotency record first: a retry fails on it before anything else (its answer is the first one's)
        ops: list[Op] = [Op.put(idem, condition="attribute_not_exists(PK)", on_fail=IdempotentReplay)] if idem else []
        ops.extend(self._entry_ops(entry, expect))
        ops.extend(roster_copy_ops([(None, entry)]))
        if payment:
            ops.append(Op.put(payment_item(payment), condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry))
        ops.extend(extra)
        self.t.transact(ops)

    def transition(self, before: Entry, after: Entry, *, extra: Iterable[Op] = (), take_place: bool = True) -> None:
        """Replaces `before` by `after` if nobody changed it meanwhile, moving the counters to match."""
        delta = counter_delta(before, after)
        if take_place and delta.get("taken", 0) > 0:
            after = self.with_place_shard(after)
        ops = [Op.put(entry_item(after), condition="version = :v", values={":v": before.version},
                      on_fail=lambda: errors.VersionConflict("The entry changed meanwhile; reload and try again."))]
        if after.shard == before.shard:
            counters = [self._counter_op(after.event_id, delta, take_place, shard=after.shard)]
        else:   # its counts move to another shard: off the old one, onto the new one (with its place condition)
            counters = [self._counter_op(after.event_id, counter_delta(before, None), take_place, shard=before.shard),
                        self._counter_op(after.event_id, counter_delta(None, after), take_place, shard=after.shard)]
        ops.extend(c for c in counters if c)
        ops.extend(phone_index_moves(before, after))
        ops.extend(roster_copy_ops([(before, after)]))
        ops.extend(extra)
        self.t.transact(ops)

    def transition_many(self, changes: list[tuple[Entry, Entry]], *, extra: Iterable[Op] = ()) -> None:
        """Several entries' money at once (a day's payment partly refunded), each only if nobody changed it
        meanwhile, with `extra`, in one transaction. No place moves here: their counters stay as they are."""
        ops = []
        for before, after in changes:
            if counter_delta(before, after):
                raise ValueError("transition_many moves no counters: use transition")
            ops.append(Op.put(entry_item(after), condition="version = :v", values={":v": before.version},
                              on_fail=lambda: errors.VersionConflict("An entry changed meanwhile; reload and try again.")))
        self.t.transact([*ops, *roster_copy_ops(changes), *extra])

    def record_payment(self, before: Entry, after: Entry, payment: Payment, extra: Iterable[Op] = ()) -> None:
        """A desk payment: the payment record and the entry's new state (and `extra`) in one transaction."""
        self.transition(before, after, extra=[Op.put(payment_item(payment), condition="attribute_not_exists(PK)",
                                                     on_fail=errors.DuplicateEntry), *extra])

    def merge(self, sources: list[Entry], merged: list[Entry], new_entry: Entry) -> None:
        """Partner seekers joined into one entry: the new entry takes a place; the seekers become 'merged'."""
        new_entry = self.with_place_shard(new_entry)
        ops = [Op.put(entry_item(new_entry), condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
               Op.put({**keys.entry_pointer(new_entry.id), "kind": "entry_pointer", "event_id": new_entry.event_id})]
        for before, after in zip(sources, merged, strict=True):
            ops.append(Op.put(entry_item(after), condition="version = :v", values={":v": before.version},
                              on_fail=lambda: errors.VersionConflict("An entry changed meanwhile; reload.")))
        counter = self._counter_op(new_entry.event_id, counter_delta(None, new_entry), take_place=True,
                                   shard=new_entry.shard)
        if counter:
            ops.append(counter)
        ops.extend(phone_index_ops(new_entry))
        ops.extend(roster_copy_ops([(None, new_entry), *zip(sources, merged, strict=True)]))
        self.t.transact(ops)


class PaymentRepo:
    def __init__(self, table: Table):
        self.t = table

    def get(self, payment_id: str) -> Payment | None:
        item = self.t.get(keys.payment(payment_id))
        return Payment.model_validate_json(item["data"]) if item else None

    def put_new(self, payment: Payment) -> None:
        self.t.put(payment_item(payment), condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry)

    def save(self, before: Payment, after: Payment, *, stripe_event: tuple[str, int] | None = None) -> None:
        """Saves `after` if nobody changed `before`; with `stripe_event` (id, expiry) also records that event as
        handled, in the same transaction, so a redelivered webhook changes nothing."""
        self.t.transact(self.ops(before, after, stripe_event))

    def ops(self, before: Payment, after: Payment, stripe_event: tuple[str, int] | None = None) -> list[Op]:
        """The same, as operations to join an entry's transition."""
        ops = [Op.put(payment_item(after), condition="version = :v", values={":v": before.version},
                      on_fail=lambda: errors.VersionConflict("The payment changed meanwhile."))]
        if stripe_event:
            ops.append(Op.put({**keys.stripe_event(stripe_event[0]), "kind": "stripe_event", "expires_at": stripe_event[1]},
                              condition="attribute_not_exists(PK)",
                              on_fail=lambda: errors.DuplicateEntry("event already handled")))
        return ops

    def stripe_event_seen(self, stripe_event_id: str) -> bool:
        return self.t.get(keys.stripe_event(stripe_event_id)) is not None

    def mark_stripe_event(self, stripe_event_id: str, expires_epoch: int) -> None:
        self.t.put({**keys.stripe_event(stripe_event_id), "kind": "stripe_event", "expires_at": expires_epoch})
