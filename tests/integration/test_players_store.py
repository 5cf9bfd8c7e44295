"""Players' sign-in records on every store backend (store/players.py): a code used once and only before its
expiry, wrong tries that end it, one player per phone, sessions by token hash."""
from __future__ import annotations


def test_a_code_is_used_once_before_its_expiry_and_wrong_tries_end_it(any_repos):
    repo = any_repos.players
    repo.put_code("ph1", "h-right", expires_at=1_000, issued_at=400)
    assert repo.use_code("ph1", "h-wrong", now=500) is False
    assert repo.use_code("ph1", "h-right", now=1_000) is False          # expired at 1000
    assert repo.use_code("ph1", "h-right", now=999) is True
    assert repo.use_code("ph1", "h-right", now=999) is False            # once
    assert repo.code("ph1") is None
    repo.put_code("ph1", "h-next", expires_at=2_000, issued_at=1_400)
    for _ in range(2):
        repo.wrong_code("ph1", "h-next", max_wrong=3)
    assert int(repo.code("ph1")["wrong"]) == 2
    repo.wrong_code("ph1", "h-next", max_wrong=3)
    assert repo.code("ph1") is None and repo.use_code("ph1", "h-next", now=1_500) is False
    repo.wrong_code("ph1", "h-next", max_wrong=3)                       # nothing left to count: no error


def test_one_player_per_phone_and_sessions_by_hash(any_repos):
    repo = any_repos.players
    first = repo.get_or_create("ph2", "P1", "13800000000", "2026-12-01T00:00:00+00:00")
    again = repo.get_or_create("ph2", "P2", "13800000000", "2026-12-02T00:00:00+00:00")
    assert first["id"] == again["id"] == "P1"
    repo.add_session("tok-hash", "P1", "ph2", expires_at=5_000)
    assert repo.session("tok-hash")["player_id"] == "P1" and repo.session("other") is None
    assert repo.by_phone_hash("ph2")["phone"] == "13800000000"


def test_a_wechat_binding_uses_its_ticket_once_and_one_openid_is_one_players(any_repos):
    from chalicelib import errors
    repo = any_repos.players
    for ph in ("ph3", "ph4"):
        repo.get_or_create(ph, f"P-{ph}", "1380000000" + ph[-1], "2026-12-01T00:00:00+00:00")

    def refused(*args, **kw) -> str:
        try:
            repo.bind_wechat(*args, **kw)
        except errors.DomainError as exc:
            return exc.code
        return ""
    repo.put_wechat_ticket("t1", "oOne", expires_at=1_000)
    assert repo.wechat_ticket("t1")["openid"] == "oOne"
    assert refused("ph3", "h-one", "oOne", "t1", now=1_000) == "binding_ticket_invalid"   # expired at 1000
    repo.bind_wechat("ph3", "h-one", "oOne", "t1", now=999)
    assert repo.by_wechat("h-one")["phone_hash"] == "ph3" and repo.wechat_ticket("t1") is None
    assert repo.by_phone_hash("ph3")["wechat_openid"] == "oOne"
    assert refused("ph3", "h-one", "oOne", "t1", now=999) == "binding_ticket_invalid"     # used
    repo.put_wechat_ticket("t2", "oOne", expires_at=2_000)
    assert refused("ph4", "h-one", "oOne", "t2", now=1_500) == "wechat_already_bound"     # the openid is ph3's
    assert repo.wechat_ticket("t2") is not None                                            # nothing half written
    assert "wechat_hash" not in repo.by_phone_hash("ph4")
    repo.put_wechat_ticket("t3", "oTwo", expires_at=2_000)
    assert refused("ph3", "h-two", "oTwo", "t3", now=1_500) == "wechat_already_bound"     # ph3 has another
    assert repo.by_wechat("h-two") is None
    # a binding left by a player who is gone may be replaced, when the caller says so
    repo.forget("ph3", None, [], [])                                                       # (kept the binding)
    assert refused("ph4", "h-one", "oOne", "t2", now=1_500) == "wechat_already_bound"
    repo.bind_wechat("ph4", "h-one", "oOne", "t2", now=1_500, stale="ph3")
    assert repo.by_wechat("h-one")["phone_hash"] == "ph4"
    repo.forget("ph4", None, [], [], wechat_hash="h-one")
    assert repo.by_wechat("h-one") is None and repo.by_phone_hash("ph4") is None


def test_a_player_dropped_by_retention_takes_its_own_wechat_binding_along(any_repos):
    """drop_if_unheld (the retention sweep's last step for a phone): the binding goes in the same write — unless
    it leads to another phone by now, which is that player's."""
    from chalicelib.store import keys
    repo = any_repos.players
    for ph, openid in (("ph7", "oSeven"), ("ph8", "oEight")):
        repo.get_or_create(ph, f"P-{ph}", "1380000000" + ph[-1], "2026-12-01T00:00:00+00:00")
        repo.put_wechat_ticket(f"t-{ph}", openid, expires_at=2_000)
        repo.bind_wechat(ph, f"h-{ph}", openid, f"t-{ph}", now=1_000)
    assert repo.drop_if_unheld("ph7") is True
    assert repo.by_phone_hash("ph7") is None and repo.by_wechat("h-ph7") is None
    any_repos.table.update(keys.wechat_binding("h-ph8"), "SET phone_hash = :p", values={":p": "ph9"})
    assert repo.drop_if_unheld("ph8") is True and repo.by_phone_hash("ph8") is None
    assert repo.by_wechat("h-ph8")["phone_hash"] == "ph9"
