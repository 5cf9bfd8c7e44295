"""The retention sweep's reads and writes (services/retention.py, issue 41 item 4): the tournaments due, their
entries a page at a time, and each record written back without its contact data — an entry under its version, with
the items that key its people by phone removed in the same transaction; a registration's contact; a message's
address. Every write is conditional on the record still being there (and, for an entry, unchanged)."""
from __future__ import annotations

from .. import errors
from ..messages.record import Message
from ..models import Entry
from ..phones import MAINLAND_MOBILE
from . import keys
from .dynamo import Op, Table
from .entries import entry_item, phone_hash, phone_hash_of, roster_copy_ops


class RetentionRepo:
    def __init__(self, table: Table):
        self.t = table

    def due(self, today_iso: str, limit: int = 25) -> list[str]:
        """Ids of the tournaments whose contact data is due for erasure by `today_iso` (a date), earliest first."""
        items = self.t.query(keys.RETENTION_PARTITION, index="GSI1", upper=today_iso + "~", limit=limit)
        return [i["GSI1SK"].rsplit("#", 1)[1] for i in items]

    def entries_page(self, eid: str, after_sk: str | None, limit: int) -> tuple[list[Entry], str | None]:
        """Up to `limit` entries of the event after the sort key `after_sk`, and where this page stopped (None: the
        last page)."""
        pk = keys.event_partition(eid)
        start = {"PK": {"S": pk}, "SK": {"S": after_sk}} if after_sk else None
        items, last = self.t.query_page(pk, keys.ENTRY_PREFIX, keys.ENTRY_PREFIX[:-1] + "$", start=start,
                                        projection="data", limit=limit)
        return [Entry.model_validate_json(i["data"]["S"]) for i in items], last

    def erase_entry(self, before: Entry, after: Entry) -> None:
        """`after` (the same entry without contact data, its version moved) replaces `before` if nobody changed it
        meanwhile (else VersionConflict: the sweep reads it again next time); the person items that keyed its
        phones in the event go with it (a hash of a phone is still the phone: it can be guessed back)."""
        ops = [Op.put(entry_item(after), condition="version = :v", values={":v": before.version},
                      on_fail=errors.VersionConflict)]
        phones = sorted({m.phone for m in before.members if m.phone})
        phones += ["+86" + p for p in phones if MAINLAND_MOBILE.fullmatch(p)]   # items keyed before issue 36
        # only this entry's own (another entry of the same person, registered after a withdrawal, keeps its item
        # until its own erasure)
        ops += [Op.delete(keys.person_in_event(before.event_id, phone_hash(p)),
                          condition="attribute_not_exists(PK) OR entry_id = :e", values={":e": before.id},
                          on_fail=errors.VersionConflict) for p in phones]
        # and its items in the phones' "我的" index: an erased entry is nobody's any more (the delete of an item
        # already gone is no error, so the write stays idempotent)
        ops += [Op.delete(keys.phone_entry(h, before.id)) for h in sorted({phone_hash_of(m.phone) for m in before.members if m.phone})]
        ops += roster_copy_ops([(before, after)])
        self.t.transact(ops)

    def registration(self, reg_id: str) -> dict | None:
        item = self.t.get(keys.registration(reg_id))
        return {k: v for k, v in item.items() if k not in ("PK", "SK", "kind")} if item else None

    def erase_registration(self, reg_id: str, before: dict, contact: dict) -> None:
        """The registration's contact erased, and its item in the contact phone's "我的" index with it."""
        ops = [Op.update(keys.registration(reg_id), "SET #c = :c", names={"#c": "contact"}, values={":c": contact},
                         condition="attribute_exists(PK)", on_fail=errors.NotFound)]
        if before.get("phone"):
            ops.append(Op.delete(keys.phone_registration(phone_hash_of(before["phone"]), reg_id)))
        self.t.transact(ops)

    def messages_page(self, tid: str, after_sk: str | None, limit: int) -> tuple[list[Message], str | None]:
        pk = keys.messages_partition(tid)
        start = {"PK": {"S": pk}, "SK": {"S": after_sk}} if after_sk else None
        items, last = self.t.query_page(pk, keys.MESSAGE_PREFIX, keys.MESSAGE_PREFIX[:-1] + "$", start=start,
                                        projection="data", limit=limit)
        return [Message.model_validate_json(i["data"]["S"]) for i in items], last

    def erase_message(self, after: Message) -> None:
        """The message's record without its address (its state, tries and cause stay for the console)."""
        self.t.update(keys.message(after.tournament_id, after.key), "SET #d = :d", names={"#d": "data"},
                      values={":d": after.model_dump_json()}, condition="attribute_exists(PK)",
                      on_fail=errors.NotFound)
