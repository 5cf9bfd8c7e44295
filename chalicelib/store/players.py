"""Players and their sign-in (api.md v1.3 "Players"): a player is a verified phone, keyed by the phone's keyed hash;
its current SMS code (hashed, with its expiry and wrong tries) and its sessions (token hashes). A code is used
by one conditional delete that names its hash, expiry and tries: a code signs in once, however many requests
race with it."""
from __future__ import annotations

from .. import errors
from . import keys
from .dynamo import Op, Table


class _Gone(errors.DomainError):
    """A code already used, replaced, expired or out of tries (internal: never leaves the repository)."""


class PlayerRepo:
    def __init__(self, table: Table):
        self.t = table

    def put_code(self, phone_hash: str, code_hash: str, expires_at: int, issued_at: int) -> None:
        """The phone's new code; it replaces any earlier one (only the last SMS works)."""
        self.t.put({**keys.player_code(phone_hash), "kind": "player_code", "code_hash": code_hash,
                    "expires_at": expires_at, "issued_at": issued_at, "wrong": 0})

    def code(self, phone_hash: str) -> dict | None:
        return self.t.get(keys.player_code(phone_hash), consistent=True)

    def use_code(self, phone_hash: str, code_hash: str, now: int) -> bool:
        """Deletes the code if it is this one, not expired: True once, whoever else tries it at the same time."""
        try:
            self.t.delete(keys.player_code(phone_hash), condition="code_hash = :h AND expires_at > :now",
                          values={":h": code_hash, ":now": now}, on_fail=_Gone)
            return True
        except _Gone:
            return False

    def wrong_code(self, phone_hash: str, seen_hash: str, max_wrong: int) -> None:
        """Counts a wrong try against the code; the last allowed one deletes it (6 digits do not survive a
        million guesses: `max_wrong` of them per code, and codes are limited per phone and day)."""
        try:
            item = self.t.update(keys.player_code(phone_hash), "ADD wrong :one", values={":one": 1, ":h": seen_hash},
                                 condition="code_hash = :h", on_fail=_Gone)
        except _Gone:
            return
        if int(item.get("wrong", 0)) >= max_wrong:
            self._drop(phone_hash, seen_hash)

    def _drop(self, phone_hash: str, seen_hash: str) -> None:
        try:
            self.t.delete(keys.player_code(phone_hash), condition="code_hash = :h", values={":h": seen_hash},
                          on_fail=_Gone)
        except _Gone:
            pass

    def get_or_create(self, phone_hash: str, player_id: str, phone: str, now_iso: str) -> dict:
        """The phone's player, created on its first sign-in (a concurrent first sign-in finds the one written)."""
        item = {**keys.player(phone_hash), "kind": "player", "id": player_id, "phone": phone, "created_at": now_iso}
        try:
            self.t.put(item, condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry)
            return item
        except errors.DuplicateEntry:
            return self.t.get(keys.player(phone_hash))

    def add_session(self, token_hash: str, player_id: str, phone_hash: str, expires_at: int) -> None:
        self.t.put({**keys.player_session(token_hash), "kind": "player_session", "player_id": player_id,
                    "phone_hash": phone_hash, "expires_at": expires_at}, condition="attribute_not_exists(PK)",
                   on_fail=errors.DuplicateEntry)

    def session(self, token_hash: str) -> dict | None:
        return self.t.get(keys.player_session(token_hash))

    def by_phone_hash(self, phone_hash: str) -> dict | None:
        return self.t.get(keys.player(phone_hash))

    # -- the player's profile (PATCH /players/me): stored on the player's item; `lang` is what messages use
    PROFILE = ("name", "email", "lang", "notify")

    def update_profile(self, phone_hash: str, changes: dict) -> dict:
        """Sets the given profile fields (None removes one); the player must exist."""
        sets = {k: v for k, v in changes.items() if k in self.PROFILE and v is not None}
        gone = [k for k, v in changes.items() if k in self.PROFILE and v is None]
        names = {f"#{k}": k for k in [*sets, *gone]}
        expr = " ".join(filter(None, ["SET " + ", ".join(f"#{k} = :{k}" for k in sets) if sets else "",
                                      "REMOVE " + ", ".join(f"#{k}" for k in gone) if gone else ""]))
        if not expr:
            return self.by_phone_hash(phone_hash) or {}
        return self.t.update(keys.player(phone_hash), expr, names=names, values={f":{k}": v for k, v in sets.items()},
                             condition="attribute_exists(PK)",
                             on_fail=lambda: errors.Unauthorized("请先登录 · Sign in first."))

    # -- WeChat (api.md v1.3 `{"wechat_code"}`): the openid at the platform's official account, bound to one player
    # once — on the player's item (messages' WeChat channel: outbox looks it up by phone) and under its keyed hash
    # (who signs in with it). A sign-in not yet bound waits for its phone under a ticket (10 minutes, used once).
    def put_wechat_ticket(self, ticket_hash: str, openid: str, expires_at: int) -> None:
        self.t.put({**keys.wechat_ticket(ticket_hash), "kind": "wechat_ticket", "openid": openid,
                    "expires_at": expires_at})

    def wechat_ticket(self, ticket_hash: str) -> dict | None:
        return self.t.get(keys.wechat_ticket(ticket_hash), consistent=True)

    def by_wechat(self, openid_hash: str) -> dict | None:
        """The binding ({"phone_hash"}) of an openid's keyed hash, or None."""
        return self.t.get(keys.wechat_binding(openid_hash), consistent=True)

    def bind_wechat(self, phone_hash: str, openid_hash: str, openid: str, ticket_hash: str, now: int,
                    stale: str | None = None) -> None:
        """All or nothing: the ticket used (fresh, once), the openid bound to this phone's player unless it is
        another's, and the player given the openid unless it has another (WeChatAlreadyBound; binding the same
        pair again is a no-op that still uses the ticket). `stale`: the phone hash of a binding left behind by a
        player who is gone (erased by a path that kept it), which this one may replace."""
        def bound(reason: str):
            return lambda: errors.WeChatAlreadyBound(details={"reason": reason})
        self.t.transact([
            Op.delete(keys.wechat_ticket(ticket_hash), condition="attribute_exists(PK) AND expires_at > :now",
                      values={":now": now}, on_fail=errors.BindingTicketInvalid),
            Op.put({**keys.wechat_binding(openid_hash), "kind": "wechat_binding", "phone_hash": phone_hash},
                   condition="attribute_not_exists(PK) OR phone_hash = :p OR phone_hash = :stale",
                   values={":p": phone_hash, ":stale": stale or phone_hash},
                   on_fail=bound("wechat_bound_to_another_phone")),
            Op.update(keys.player(phone_hash), "SET wechat_openid = :o, wechat_hash = :h",
                      condition="attribute_exists(PK) AND (attribute_not_exists(wechat_hash) OR wechat_hash = :h)",
                      values={":o": openid, ":h": openid_hash}, on_fail=bound("phone_bound_to_another_wechat")),
        ])

    # -- the phone index (written by store/entries.py with each entry and day registration)
    def holdings(self, phone_hash: str) -> list[dict]:
        """Every entry and registration made with this phone: {"kind": "phone_entry" | "phone_registration",
        entry_id / registration_id, event_id, tournament_id}, oldest first (their ids are ULIDs)."""
        return [{k: v for k, v in i.items() if k not in ("PK", "SK")}
                for i in self.t.query(keys.phone_partition(phone_hash))]

    def forget(self, phone_hash: str, token_hash: str | None, entry_ids: list[str], registration_ids: list[str],
               wechat_hash: str | None = None) -> None:
        """Erasure's last step: the index items of the entries and registrations erased (one made meanwhile keeps
        its own), the player — every item of its partition: name, e-mail, phone, WeChat openid, its code — its
        WeChat binding, and this session."""
        ops = [Op.delete(k) for k in self._player_keys(phone_hash)]
        if wechat_hash:
            ops.append(Op.delete(keys.wechat_binding(wechat_hash)))
        ops += [Op.delete(keys.phone_entry(phone_hash, x)) for x in entry_ids]
        ops += [Op.delete(keys.phone_registration(phone_hash, x)) for x in registration_ids]
        if token_hash:
            ops.append(Op.delete(keys.player_session(token_hash)))
        for k in range(0, len(ops), 90):
            self.t.transact(ops[k:k + 90])

    def _player_keys(self, phone_hash: str) -> list[dict]:
        """The player's own items (its record, its code, whatever else sign-in keeps under the player), by key."""
        pk = keys.player(phone_hash)["PK"]
        found = {i["SK"] for i in self.t.query(pk, projection="PK, SK")}
        return [{"PK": pk, "SK": sk} for sk in sorted(found | {keys.player(phone_hash)["SK"],
                                                               keys.player_code(phone_hash)["SK"]})]

    def drop_if_unheld(self, phone_hash: str) -> bool:
        """The retention sweep's step after a phone's last entry and registration lost it: with nothing left in its
        "我的" index, the player's record (phone, name, e-mail, WeChat openid, code) and its WeChat binding go
        too — True when it did.
        A player who still holds an entry anywhere keeps it: it is theirs (DELETE /players/me erases it).
        Deleting what is already gone writes nothing wrong: a second sweep is harmless."""
        if self.t.query(keys.phone_partition(phone_hash), limit=1, projection="PK, SK"):
            return False
        player = self.by_phone_hash(phone_hash)
        if player is None:
            return False
        ops = [Op.delete(k) for k in self._player_keys(phone_hash)]
        # its WeChat binding in the same write (left behind, the openid would still lead to this phone's hash),
        # unless the openid is bound to another phone by now: that binding is the other player's
        binding = keys.wechat_binding(player["wechat_hash"]) if player.get("wechat_hash") else None
        if binding and (self.t.get(binding) or {}).get("phone_hash") == phone_hash:
            ops.append(Op.delete(binding, condition="phone_hash = :p", values={":p": phone_hash},
                                 on_fail=errors.Conflict))
        try:
            self.t.transact(ops)
        except errors.Conflict:   # rebound meanwhile (a stale binding replaced): the player goes, the binding stays
            self.t.transact([Op.delete(k) for k in self._player_keys(phone_hash)])
        return True
