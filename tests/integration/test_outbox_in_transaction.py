"""Issue 41 on every store backend (moto, DynamoDB Local, embedded): a message's outbox item is written in its
cause's own transaction — an entry (or a refund's entry change) and its message both, or neither."""
from __future__ import annotations

import pytest

from chalicelib import errors
from chalicelib.messages import record
from tests.integration.test_entries_store import _entry, _setup


def _message(entry, cause, clock):
    return record.new(id=f"m-{cause}", cause=cause, kind="registration_received", channel="sms",
                      to=entry.members[0].phone, now=clock(), params={"event": "掼蛋", "link": "x"},
                      tournament_id=entry.tournament_id)


def test_an_entry_and_its_message_are_written_together_or_not_at_all(any_repos, clock):
    e = _setup(any_repos, clock, capacity=3)
    first = _entry(e, clock)
    any_repos.entries.create(first, extra=[any_repos.messages.queue_op(_message(first, f"registration:{first.id}", clock))])
    assert any_repos.entries.get(e.id, first.id) == first
    [m] = any_repos.messages.for_tournament(e.tournament_id)
    assert m.cause == f"registration:{first.id}" and m.state == "queued"
    assert [x.cause for x, _ in any_repos.messages.due(clock(), 10)] == [m.cause]
    # a second entry whose message cannot be written (its key is taken): the entry is not written either
    second = _entry(e, clock)
    with pytest.raises(errors.DuplicateEntry):
        any_repos.entries.create(second, extra=[any_repos.messages.queue_op(_message(second, f"registration:{first.id}",
                                                                                     clock))])
    assert any_repos.entries.get(e.id, second.id) is None
    assert any_repos.entries.counters(e.id)["taken"] == 1
    assert len(any_repos.messages.for_tournament(e.tournament_id)) == 1


def test_a_refunds_entry_change_and_its_message_are_one_write(any_repos, clock):
    e = _setup(any_repos, clock, capacity=3)
    entry = _entry(e, clock)
    any_repos.entries.create(entry)
    after = entry.model_copy(update={"version": entry.version + 1, "note": "refunded"})
    told = _message(entry, f"refund:p1:100:{entry.id}", clock)
    any_repos.messages.queue(told)                         # the message there already: the write must fail whole
    with pytest.raises(errors.DuplicateEntry):
        any_repos.entries.transition(entry, after, extra=[any_repos.messages.queue_op(told)])
    assert any_repos.entries.get(e.id, entry.id).version == entry.version
    fresh = _message(entry, f"refund:p1:200:{entry.id}", clock)
    any_repos.entries.transition(entry, after, extra=[any_repos.messages.queue_op(fresh)])
    assert any_repos.entries.get(e.id, entry.id).version == entry.version + 1
    assert {m.cause for m in any_repos.messages.for_tournament(e.tournament_id)} == {told.cause, fresh.cause}
