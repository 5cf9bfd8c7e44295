"""A manage link sent again by the desk (services/manage_links.py): the new token's hash on the entry (or on every
entry of its day registration and the registration itself) and the messages that carry the link, in one
transaction — a link is never sent that does not open, and never replaced without being sent."""
from __future__ import annotations

from .. import errors
from ..messages.record import Message
from ..models import Entry
from . import keys
from .dynamo import Op, Table
from .entries import entry_item, roster_copy_ops
from .messages import MessageRepo


class ManageLinkRepo:
    def __init__(self, table: Table):
        self.t = table

    def rotate(self, changes: list[tuple[Entry, Entry]], registration_id: str | None, token_hash: str,
               messages: list[Message]) -> None:
        ops = [Op.put(entry_item(after), condition="version = :v", values={":v": before.version},
                      on_fail=lambda: errors.VersionConflict("报名刚被修改，请重试 · An entry changed meanwhile; try again."))
               for before, after in changes]
        ops += roster_copy_ops(changes)   # none moves today (a token's hash is no roster field): kept in step all the same
        if registration_id:
            ops.append(Op.update(keys.registration(registration_id), "SET manage_token_hash = :h",
                                 values={":h": token_hash}, condition="attribute_exists(PK)",
                                 on_fail=errors.NotFound))
        outbox = MessageRepo(self.t)
        ops += [outbox.queue_op(m) for m in messages]
        self.t.transact(ops)
