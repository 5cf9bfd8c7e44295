"""The messages' outbox on every store backend (store/messages.py): one message per cause and channel, due ones
found by time, one worker's claim at a time, the outcome written only by the claim's holder."""
from __future__ import annotations

from datetime import timedelta

from chalicelib.messages import record


def _msg(clock, cause="registration:E1", tid="T1", kind="registration_received"):
    return record.new(id=f"m-{cause}", cause=cause, kind=kind, channel="sms", to="13812345678", now=clock(),
                      params={"event": "掼蛋", "link": "L"}, tournament_id=tid)


def test_a_cause_makes_one_message_and_the_due_ones_come_in_time_order(any_repos, clock):
    repo = any_repos.messages
    assert repo.queue(_msg(clock)) is True
    assert repo.queue(_msg(clock).model_copy(update={"id": "another"})) is False   # the same cause again
    later = _msg(clock, cause="refund:E2", kind="refunded").model_copy(update={"next_at": clock() + timedelta(hours=1)})
    assert repo.queue(later) is True
    assert [m.id for m, _ in repo.due(clock())] == ["m-registration:E1"]
    assert [m.id for m, _ in repo.due(clock() + timedelta(hours=2))] == ["m-registration:E1", "m-refund:E2"]
    assert sorted(m.id for m in repo.for_tournament("T1")) == ["m-refund:E2", "m-registration:E1"]
    assert repo.for_tournament("T2") == []


def test_one_claim_wins_and_only_its_holder_settles(any_repos, clock):
    repo = any_repos.messages
    repo.queue(_msg(clock))
    [(m, seen)] = repo.due(clock())
    trying = record.tried(m, clock())
    assert repo.claim(trying, seen, "w1", clock() + timedelta(minutes=2)) is True
    assert repo.claim(trying, seen, "w2", clock() + timedelta(minutes=2)) is False
    assert repo.due(clock()) == []                                   # leased: not due again until the lease ends
    assert repo.settle(record.sent(trying, clock(), "p", "id1"), "w2") is False
    assert repo.get("T1", m.key).state == "queued" and repo.get("T1", m.key).tries == 1
    assert repo.settle(record.sent(trying, clock(), "p", "id1"), "w1") is True
    got = repo.get("T1", m.key)
    assert got.state == "sent" and got.provider_id == "id1" and "link" in got.params   # not a secret param here
    assert repo.due(clock() + timedelta(days=1)) == []               # out of the index
    assert repo.by_provider_id("p", "id1").id == m.id and repo.by_provider_id("p", "other") is None
    repo.mark_delivered(got)
    assert repo.get("T1", m.key).state == "delivered"


def test_a_failed_try_is_due_again_after_its_back_off_and_a_lapsed_lease_frees_it(any_repos, clock):
    repo = any_repos.messages
    repo.queue(_msg(clock))
    [(m, seen)] = repo.due(clock())
    trying = record.tried(m, clock())
    assert repo.claim(trying, seen, "w1", clock() + timedelta(minutes=2))
    assert repo.settle(record.failed_try(trying, clock(), "unavailable"), "w1")
    assert repo.due(clock() + timedelta(seconds=29)) == []
    [(again, seen2)] = repo.due(clock() + timedelta(seconds=30))
    assert again.tries == 1 and again.error == "unavailable"
    # a worker that dies holding the claim: the message is due again once the lease has passed
    assert repo.claim(record.tried(again, clock()), seen2, "w2", clock() + timedelta(minutes=3))
    [(lapsed, _)] = repo.due(clock() + timedelta(minutes=4))
    assert lapsed.tries == 2
