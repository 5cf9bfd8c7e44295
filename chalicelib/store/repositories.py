"""Repositories: models in, models out. The only code that knows item shapes besides keys.py."""
from __future__ import annotations

from .. import errors
from ..models import Counters, Event, Organiser, Tournament
from . import keys
from .dynamo import Op, Table, chunks


def _doc_item(key: dict, model, kind: str, **extra) -> dict:
    return {**key, "kind": kind, "data": model.model_dump_json(), **extra}


class OrganiserRepo:
    def __init__(self, table: Table):
        self.t = table

    def create(self, organiser: Organiser, token: dict) -> None:
        self.t.transact([
            Op.put(_doc_item(keys.organiser(organiser.id), organiser, "organiser"),
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            *self._token_ops(organiser.id, token),
        ])

    @staticmethod
    def _token_ops(oid: str, token: dict) -> list[Op]:
        """A token: its pointer by hash (authenticates) and its listed record (label, parent), together."""
        expiry = {"expires_at": token["expires_at"]} if token.get("expires_at") else {}   # sessions end (TTL too)
        return [
            Op.put({**keys.organiser_token(token["hash"]), "kind": "organiser_token", "organiser_id": oid,
                    "token_id": token["id"], **expiry}, condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            Op.put({**keys.organiser_token_record(oid, token["id"]), "kind": "organiser_token_record", **token},
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
        ]

    def get(self, oid: str) -> Organiser | None:
        item = self.t.get(keys.organiser(oid))
        return Organiser.model_validate_json(item["data"]) if item else None

    def by_token_hash(self, token_hash: str) -> tuple[Organiser, str, int] | None:
        """(organiser, token id, expiry epoch or 0) of a token that exists; the caller checks the expiry."""
        pointer = self.t.get(keys.organiser_token(token_hash))
        if not pointer:
            return None
        organiser = self.get(pointer["organiser_id"])
        if organiser is None or organiser.revoked:
            return None
        return organiser, pointer.get("token_id", ""), int(pointer.get("expires_at") or 0)

    # -- accounts that sign in with a password
    def set_login(self, oid: str, login_hash: str, password_hash: str, *, create: bool) -> None:
        """`login_hash`: the keyed hash of the normalised phone or e-mail (never the login in clear)."""
        item = {**keys.login(login_hash), "kind": "login", "organiser_id": oid, "password_hash": password_hash}
        if create:
            self.t.put(item, condition="attribute_not_exists(PK)", on_fail=lambda: errors.DuplicateEntry(
                "这个手机号或邮箱已有账号 · An account with this phone number or e-mail exists."))
        else:
            self.t.put(item, condition="attribute_exists(PK)",
                       on_fail=lambda: errors.NotFound("没有这个账号 · No such account."))

    def login(self, login_hash: str, *legacy_names: str) -> dict | None:
        """The account of a login. An item an older version stored under another key (the login in clear, or a
        phone number in a form no longer used: +86…) is moved under this one on first use (one transaction), so
        no phone number stays in a key and each account has one key."""
        item = self.t.get(keys.login(login_hash))
        names = [n for n in legacy_names if n]
        if item is not None or not names:
            return item
        found = [(n, i) for n, i in zip(names, self.t.get_many([keys.login(n) for n in names])) if i is not None]
        if not found:
            return None
        legacy_name, old = found[0]
        moved = {**old, **keys.login(login_hash)}
        try:
            self.t.transact([Op.put(moved, condition="attribute_not_exists(PK)"),
                             Op.delete(keys.login(legacy_name), condition="attribute_exists(PK)")])
        except errors.Conflict:   # moved meanwhile by a concurrent sign-in
            return self.t.get(keys.login(login_hash))
        return moved

    # -- the account's phone for a password reset by SMS (services/organiser_recovery.py): an attribute beside the
    # organiser's document, not in it, so no answer that shows the organiser carries it
    def set_phone(self, oid: str, phone: str) -> None:
        self.t.update(keys.organiser(oid), "SET reset_phone = :p", values={":p": phone},
                      condition="attribute_exists(PK)", on_fail=lambda: errors.NotFound("organiser not found"))

    def phone(self, oid: str) -> str | None:
        item = self.t.get(keys.organiser(oid))
        return item.get("reset_phone") if item else None

    def add_token(self, oid: str, token: dict) -> None:
        self.t.transact(self._token_ops(oid, token))

    def tokens(self, oid: str) -> list[dict]:
        return [{k: v for k, v in item.items() if k not in ("PK", "SK", "kind", "hash")}
                for item in self.t.query(keys.organiser_partition(oid), "TOKEN#")]

    def revoke_tokens(self, oid: str, token_ids: list[str]) -> None:
        """Deletes the tokens (record and pointer) in one transaction per batch."""
        records = {item["id"]: item for item in self.t.query(keys.organiser_partition(oid), "TOKEN#")}
        ops = []
        for tid in token_ids:
            rec = records.get(tid)
            if rec is None:
                continue
            ops.append(Op.delete(keys.organiser_token_record(oid, tid)))
            ops.append(Op.delete(keys.organiser_token(rec["hash"])))
        for batch in chunks(ops, 100):
            self.t.transact(batch)

    def revoke(self, oid: str) -> None:
        """Revoke the organiser: every one of its tokens stops working."""
        organiser = self.get(oid)
        if organiser is None:
            raise errors.NotFound("organiser not found")
        organiser.revoked = True
        self.t.put(_doc_item(keys.organiser(oid), organiser, "organiser"))


class StaffRepo:
    """A tournament's staff: each member's record under the tournament and a pointer by token hash."""

    def __init__(self, table: Table):
        self.t = table

    def create(self, member: dict, token_hash: str) -> None:
        self.t.transact([
            Op.put({**keys.staff(member["tournament_id"], member["id"]), "kind": "staff", **member,
                    "token_hash": token_hash}, condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            Op.put({**keys.staff_token(token_hash), "kind": "staff_token", "tournament_id": member["tournament_id"],
                    "staff_id": member["id"]}, condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry)])

    def list(self, tid: str) -> list[dict]:
        return [{k: v for k, v in i.items() if k not in ("PK", "SK", "kind", "token_hash")}
                for i in self.t.query(keys.tournament_partition(tid), keys.STAFF_PREFIX)]

    def by_token_hash(self, token_hash: str) -> dict | None:
        pointer = self.t.get(keys.staff_token(token_hash))
        if not pointer:
            return None
        item = self.t.get(keys.staff(pointer["tournament_id"], pointer["staff_id"]))
        return {k: v for k, v in item.items() if k not in ("PK", "SK", "kind", "token_hash")} if item else None

    def delete(self, tid: str, staff_id: str) -> None:
        """Removes the member and its token together: the token stops at once."""
        item = self.t.get(keys.staff(tid, staff_id))
        if not item:
            raise errors.NotFound("没有这位工作人员 · No such staff member.")
        self.t.transact([Op.delete(keys.staff(tid, staff_id)), Op.delete(keys.staff_token(item["token_hash"]))])


class RateRepo:
    """Counters of attempts per time window, for limits such as wrong table codes or failed sign-ins. Each check
    counts and decides in one conditional write, so concurrent attempts cannot all slip under a limit."""

    def __init__(self, table: Table):
        self.t = table

    def hits(self, scope: str, key: str, window: int) -> int:
        item = self.t.get(keys.rate_counter(scope, key, window), consistent=True)
        return int(item["hits"]) if item else 0

    def take(self, scope: str, key: str, window: int, limit: int, expires_epoch: int) -> bool:
        """Counts one attempt if fewer than `limit` were counted in the window; False (nothing counted) if not."""
        try:
            self.t.update(keys.rate_counter(scope, key, window), "ADD hits :one SET expires_at = :exp",
                          condition="attribute_not_exists(hits) OR hits < :limit",
                          values={":one": 1, ":exp": expires_epoch, ":limit": limit}, on_fail=_Refused)
            return True
        except _Refused:
            return False

    def count(self, scope: str, key: str, window: int, expires_epoch: int) -> None:
        """Counts one event (a failure) in the window, with no limit on the write itself."""
        self.t.update(keys.rate_counter(scope, key, window), "ADD hits :one SET expires_at = :exp",
                      values={":one": 1, ":exp": expires_epoch})

    def give_back(self, scope: str, key: str, window: int) -> None:
        """Uncounts an attempt that turned out right (a correct password is not a failure)."""
        try:
            self.t.update(keys.rate_counter(scope, key, window), "ADD hits :minus",
                          values={":minus": -1, ":zero": 0}, condition="hits > :zero", on_fail=_Refused)
        except _Refused:
            pass

    def pace(self, scope: str, key: str, window: int, now: int, free: int, expires_epoch: int) -> int:
        """A progressive delay instead of a lockout: `free` attempts at once, then each one only after a wait that
        doubles (1, 2, 4 … seconds, at most 15 minutes). Returns 0 when this attempt may go (it is counted), else
        the seconds to wait. Concurrent attempts pass one at a time: each passes only by the write that moves
        the next allowed moment."""
        k = keys.rate_counter(scope, key, window)
        try:
            self.t.update(k, "ADD hits :one SET next_at = :next, expires_at = :exp",
                          condition="attribute_not_exists(hits) OR hits < :free",
                          values={":one": 1, ":next": now + _pause(free, free), ":exp": expires_epoch, ":free": free},
                          on_fail_item=_Paced)
            return 0
        except _Paced as seen:
            hits, next_at = int(seen.item.get("hits", 0)), int(seen.item.get("next_at", 0))
        if next_at > now:
            return next_at - now
        try:
            self.t.update(k, "ADD hits :one SET next_at = :next",
                          condition="hits = :hits AND next_at <= :now",
                          values={":one": 1, ":next": now + _pause(hits + 1, free), ":hits": hits, ":now": now},
                          on_fail=_Refused)
            return 0
        except _Refused:
            return 1   # another attempt went first

    def clear(self, scope: str, key: str, window: int) -> None:
        self.t.delete(keys.rate_counter(scope, key, window))

    def bucket(self, scope: str, key: str, now_ms: int, burst: int, every_ms: int) -> int:
        """A token bucket (as GCRA: one number, the moment the bucket is next empty, `tat`): `burst` calls at once,
        then one every `every_ms`. Returns 0 when this call may go (it is counted), else the milliseconds until
        it could. Each call passes only by a conditional write that moves `tat`, so concurrent calls cannot all
        slip under the limit."""
        k = keys.rate_counter(scope, key, 0)
        latest = now_ms + (burst - 1) * every_ms        # the latest `tat` that still leaves a token for this call
        expires = (now_ms + (burst + 1) * every_ms) // 1000 + 60
        for _ in range(5):   # each lost race means another call passed: a crowd still gets through
            # Idle first (no bucket yet, or full again): most callers (one registration from a home, one phone)
            # find it so, and pass in one write.
            try:
                self.t.update(k, "SET tat = :next, expires_at = :exp", condition="attribute_not_exists(tat) OR tat < :now",
                              values={":next": now_ms + every_ms, ":exp": expires, ":now": now_ms}, on_fail_item=_Paced)
                return 0
            except _Paced as seen:
                tat = int(seen.item.get("tat", 0))
            if tat > latest:
                return tat - latest
            try:   # in use, with room left: one step on
                self.t.update(k, "ADD tat :every SET expires_at = :exp", condition="tat > :before AND tat <= :latest",
                              values={":every": every_ms, ":exp": expires, ":before": now_ms - 1, ":latest": latest},
                              on_fail=_Refused)
                return 0
            except _Refused:
                continue   # another call moved it meanwhile: decide again on what it wrote
        return every_ms

    def bucket_give_back(self, scope: str, key: str, every_ms: int) -> None:
        """Returns the token of a call that turned out not to cost what the bucket limits."""
        try:
            self.t.update(keys.rate_counter(scope, key, 0), "ADD tat :minus", condition="attribute_exists(tat)",
                          values={":minus": -every_ms}, on_fail=_Refused)
        except _Refused:
            pass


def _pause(attempt: int, free: int) -> int:
    """Seconds before the attempt after `attempt`: 1 s after the free ones, doubling, at most 15 minutes."""
    return min(2 ** max(attempt - free, 0), 900)


class _Refused(errors.DomainError):
    """A limit's condition failed (internal: never leaves the repository)."""


class _Paced(errors.DomainError):
    def __init__(self, item: dict):
        super().__init__("paced")
        self.item = item


class PublishLeaseRepo:
    """One publisher at a time per scope — each event of a tournament (scope: its id) and the tournament-wide pages
    (scope "") — and none of the asks lost: every ask counts itself (`asked`), and the lease holder releases only
    when no ask came in since it read the count (else it publishes again). Two events' scopes are two items: their
    publishers never wait on each other (issue 43)."""

    def __init__(self, table: Table):
        self.t = table

    MAX_CHANGES = 400   # what a publisher has not taken yet; beyond it the asks only say "everything"

    def ask(self, tid: str, changes: list[str] | tuple[str, ...] = ("*",), scope: str = "") -> int:
        """Counts the ask (one per change) and keeps what changed ("*": anything may have), for the publisher
        to publish only that (issue 29); a long backlog of changes becomes one "*"."""
        key = keys.publish_lease(tid, scope)
        try:
            item = self.t.update(key, "ADD asked :k SET changes = list_append(if_not_exists(changes, :none), :c)",
                                 values={":k": len(changes), ":c": list(changes), ":none": [], ":max": self.MAX_CHANGES},
                                 condition="attribute_not_exists(changes) OR size(changes) < :max")
        except errors.Conflict:
            item = self.t.update(key, "ADD asked :k SET changes = :all", values={":k": len(changes), ":all": ["*"]})
        return int(item["asked"])

    def take(self, tid: str, scope: str = "") -> tuple[int, list[str]]:
        """The ask count and the changes asked since the last take, cleared in the same step (asks after it
        start a new list). The count tells a publisher whether the changes it took are all there were since it
        last published (another publisher, or a crash, may have taken some)."""
        item = self.t.update(keys.publish_lease(tid, scope), "REMOVE changes", returns="ALL_OLD")
        return int(item.get("asked", 0)), [str(c) for c in item.get("changes") or []]

    def asked(self, tid: str, scope: str = "") -> int:
        item = self.t.get(keys.publish_lease(tid, scope))
        return int(item.get("asked", 0)) if item else 0

    def asked_by_scope(self, tid: str) -> dict[str, int]:
        """Every scope's ask count in one read ({event id or "": count}): the tournament-wide publisher uses an
        event's data kept in its process only while no ask for that event came in since it was read."""
        out = {}
        for item in self.t.query(keys.publish_leases_of(tid), "LEASE"):
            sk = str(item["SK"])
            out[sk[len("LEASE#"):] if sk.startswith("LEASE#") else ""] = int(item.get("asked", 0))
        return out

    def show(self, tid: str, scope: str, holder: str, digest: str) -> bool:
        """The holder of an event's lease notes the digest of what the tournament-wide pages show of its event;
        True when it differs from the one noted before (then the tournament-wide pages are asked for). Kept in the
        store, not the process: a publisher in another container compares with what any of them noted last."""
        try:
            self.t.update(keys.publish_lease(tid, scope), "SET shown = :d", values={":d": digest, ":h": holder},
                          condition="holder = :h AND (attribute_not_exists(shown) OR shown <> :d)")
            return True
        except errors.Conflict:   # the same as noted (or the lease is not this holder's: its holder compares)
            return False

    def acquire(self, tid: str, holder: str, now_epoch: int, seconds: int, scope: str = "") -> bool:
        try:
            self.t.update(keys.publish_lease(tid, scope), "SET holder = :h, lease_until = :until",
                          values={":h": holder, ":until": now_epoch + seconds, ":now": now_epoch},
                          condition="attribute_not_exists(holder) OR lease_until < :now")
            return True
        except errors.Conflict:
            return False

    def acquire_again(self, tid: str, holder: str, now_epoch: int, seconds: int, scope: str = "") -> bool:
        """The holder renews its lease before publishing again (False if it expired and someone took it)."""
        try:
            self.t.update(keys.publish_lease(tid, scope), "SET lease_until = :until",
                          values={":h": holder, ":until": now_epoch + seconds}, condition="holder = :h")
            return True
        except errors.Conflict:
            return False

    def release(self, tid: str, holder: str, asked: int | None = None, scope: str = "") -> bool:
        """Gives the lease up if `holder` has it (and, with `asked`, only if no ask came in since)."""
        condition = "holder = :h" + (" AND asked = :a" if asked is not None else "")
        values = {":h": holder, **({":a": asked} if asked is not None else {})}
        try:
            self.t.update(keys.publish_lease(tid, scope), "REMOVE holder, lease_until", values=values,
                          condition=condition)
            return True
        except errors.Conflict:
            return False

    def holder(self, tid: str, scope: str = "") -> str | None:
        item = self.t.get(keys.publish_lease(tid, scope))
        return item.get("holder") if item else None


def tournament_item(tournament: Tournament) -> dict:
    """The tournament's META item; until its contact data is erased, in the RETENTION index by the day it is due
    (services/retention.py sweeps it)."""
    item = _doc_item(keys.tournament(tournament.id), tournament, "tournament",
                     organiser_id=tournament.organiser_id, version=tournament.version)
    if tournament.contacts_erased_at is None:
        from ..domain.contacts import erase_on
        item.update(keys.retention_index(erase_on(tournament.ends_on, tournament.retention_days).isoformat(),
                                         tournament.id))
    return item


class TournamentRepo:
    def __init__(self, table: Table):
        self.t = table

    def create(self, tournament: Tournament) -> None:
        self.t.transact([
            Op.put(tournament_item(tournament), condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            Op.put({**keys.organiser_tournament(tournament.organiser_id, tournament.id), "kind": "org_tournament",
                    "tournament_id": tournament.id, "name": tournament.name}),
        ])

    def get(self, tid: str) -> Tournament | None:
        item = self.t.get(keys.tournament(tid))
        return Tournament.model_validate_json(item["data"]) if item else None

    def get_with_events(self, tid: str) -> tuple[Tournament | None, list[Event]]:
        """One query returns the tournament and its event configs; the events' counters come in one batch read."""
        items = self.t.query(keys.tournament_partition(tid))
        tournament, events = None, []
        for item in items:
            if item["SK"] == "META":
                tournament = Tournament.model_validate_json(item["data"])
            elif item["SK"].startswith(keys.EVENT_PREFIX):
                events.append(Event.model_validate_json(item["data"]))
        for batch in chunks(events, 100):
            for event, counters in zip(batch, self.t.get_many([keys.event_counters(e.id) for e in batch])):
                if counters and counters.get("shards"):   # a sharded event: its counts are the shards' sums
                    event.counters = _counters(EventRepo(self.t).counter_items(event.id))
                elif counters:
                    event.counters = _counters([counters])
        return tournament, events

    def list_for_organiser(self, oid: str) -> list[Tournament]:
        pointers = self.t.query(keys.organiser_partition(oid), "TOURN#")
        out = []
        for p in pointers:
            t = self.get(p["tournament_id"])
            if t:
                out.append(t)
        return out

    def update(self, tournament: Tournament, expected_version: int) -> None:
        self.t.transact([
            Op.put(tournament_item(tournament),
                   condition="version = :v", values={":v": expected_version}, on_fail=errors.VersionConflict),
            Op.put({**keys.organiser_tournament(tournament.organiser_id, tournament.id), "kind": "org_tournament",
                    "tournament_id": tournament.id, "name": tournament.name}),
        ])


def _counters(items: list[dict]) -> Counters:
    """The event's counters summed over its shard items (one item for most events: store/counters.py)."""
    from .counters import summed
    c = summed(items)
    return Counters(taken=c["taken"], confirmed=c["confirmed"], held=c["held"], waitlisted=c["waitlisted"],
                    version=c["cversion"], drawn=c["drawn"], late_closed=c["late_closed"], shards=len(c["shards"]) or 1)


class EventRepo:
    def __init__(self, table: Table):
        self.t = table

    def create(self, event: Event) -> None:
        from .counters import shard_count, spread
        n = shard_count(event.config.capacity)
        caps = spread(event.config.capacity, n)
        zero = {"taken": 0, "confirmed": 0, "held": 0, "waitlisted": 0, "cversion": 0}
        shards = [Op.put({**keys.counter_shard(event.id, k), "kind": "counter_shard", "shard": k, "cap": caps[k], **zero},
                         condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry) for k in range(1, n)]
        self.t.transact([
            Op.check(keys.tournament(event.tournament_id), "attribute_exists(PK)", on_fail=errors.NotFound),
            Op.put(_doc_item(keys.event(event.tournament_id, event.id), event, "event", version=event.version),
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            Op.put({**keys.event_counters(event.id), "kind": "event_counters", "tournament_id": event.tournament_id,
                    "organiser_id": event.organiser_id, "cap": caps[0], **zero, **({"shards": n} if n > 1 else {}),
                    "roster_copies": 1},   # its entries' roster rows are copied with each write (store/entries.py)
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            *shards,
        ])

    def counter_items(self, eid: str) -> list[dict]:
        """The counters item and its shards (store/counters.py), strongly consistent."""
        from .counters import read_items
        return read_items(self.t, eid)

    def get(self, eid: str) -> Event | None:
        counters = self.counter_items(eid)
        main = counters[0] if counters else None
        if not main:
            return None
        item = self.t.get(keys.event(main["tournament_id"], eid))
        if not item:
            return None
        event = Event.model_validate_json(item["data"])
        event.counters = _counters(counters)
        return event

    def get_with_tournament(self, eid: str) -> tuple[Event | None, Tournament | None]:
        """The event (with counters) and its tournament in two round trips instead of three: registration's
        first reads."""
        counters = self.counter_items(eid)
        main = counters[0] if counters else None
        if not main:
            return None, None
        item, tour = self.t.get_many([keys.event(main["tournament_id"], eid), keys.tournament(main["tournament_id"])])
        if not item:
            return None, None
        event = Event.model_validate_json(item["data"])
        event.counters = _counters(counters)
        return event, Tournament.model_validate_json(tour["data"]) if tour else None

    def list_for_tournament(self, tid: str) -> list[Event]:
        return TournamentRepo(self.t).get_with_events(tid)[1]

    def update(self, event: Event, expected_version: int) -> None:
        """Writes the config; capacity is mirrored on the counters so the registration condition sees it. With
        sharded counters the free places are spread over the shards again, each shard's share conditioned on the
        places it has taken (a registration in between fails this write, and the edit is tried again)."""
        from .counters import shard_no, spread
        shards = sorted(self.counter_items(event.id), key=shard_no) if event.counters.shards > 1 else []
        caps = [event.config.capacity]
        if shards:
            taken = [int(s.get("taken", 0)) for s in shards]
            free = event.config.capacity - sum(taken)
            if free < 0:
                raise errors.CapacityBelowTaken("The capacity is below the places already taken.")
            caps = [t + f for t, f in zip(taken, spread(free, len(shards)))]
        self.t.transact([
            Op.put(_doc_item(keys.event(event.tournament_id, event.id), event, "event", version=event.version),
                   condition="version = :v", values={":v": expected_version}, on_fail=errors.VersionConflict),
            # the config's version travels with the counters: a registration that reads them knows whether a
            # cached config is current (services/registration._event_for_registration)
            *(Op.update(keys.counter_shard(event.id, k), "SET cap = :cap, config_version = :cv",
                        condition="taken <= :cap", values={":cap": cap, ":cv": event.version},
                        on_fail=lambda: errors.CapacityBelowTaken("The capacity is below the places already taken."))
              for k, cap in enumerate(caps)),
        ])


class Repos:
    """All repositories over one table: what services receive."""

    def __init__(self, table: Table | None = None):
        self.table = table or Table()
        self.organisers = OrganiserRepo(self.table)
        self.rates = RateRepo(self.table)
        self.publish_leases = PublishLeaseRepo(self.table)
        self.staff = StaffRepo(self.table)
        self.tournaments = TournamentRepo(self.table)
        self.events = EventRepo(self.table)
        from .entries import EntryRepo, PaymentRepo
        self.entries = EntryRepo(self.table)
        self.payments = PaymentRepo(self.table)
        from .rounds import RoundRepo
        self.rounds = RoundRepo(self.table)
        from .hall import HallRepo
        self.hall = HallRepo(self.table)
        from .rankings import RankingRepo
        self.rankings = RankingRepo(self.table)
        from .messages import MessageRepo
        self.messages = MessageRepo(self.table)
        from .players import PlayerRepo
        self.players = PlayerRepo(self.table)
        from .payment_accounts import PaymentAccountRepo
        self.payment_accounts = PaymentAccountRepo(self.table)
        from .retention import RetentionRepo
        self.retention = RetentionRepo(self.table)
        from .manage_links import ManageLinkRepo
        self.manage_links = ManageLinkRepo(self.table)

