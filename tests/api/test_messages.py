"""Messages end to end (issue 41): a registration through the API queues its manage link, the worker sends it
through the real Tencent Cloud SDK to the provider's local stand-in (scripts/message_standins.py) — once, even
when the request is retried — and a provider that stays down is tried with back-off, then marked failed. No log
line carries a phone number, an e-mail, the link's token or the message's text."""
from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest

from chalicelib import bootstrap
from chalicelib.messages import record
from chalicelib.messages.outbox import deliver_due
from chalicelib.messages.setup import from_config
from tests.api.test_registration import make_event, register
from tests.factories import tournament_body

PHONE = "13912345678"


@pytest.fixture
def wired(standins, moto_repos, tmp_path):
    standins.sms.clear(), standins.refused.clear(), standins.fail_next(0)
    outbox_file = tmp_path / "outbox.jsonl"
    bootstrap.deps().extra["messaging"] = from_config(standins.config("tencent", str(outbox_file)))
    return outbox_file


def _body(phone=PHONE):
    return {"name": "王五", "club": "河池", "members": [{"name": "王五", "phone": phone}, {"name": "赵六"}]}


def _log_everything_ours(caplog):
    """INFO from every logger (botocore's DEBUG would dump items: never on in a deployment), and ours — which
    Chalice sets to ERROR under the app's name — at DEBUG, so a line that would leak is seen."""
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="cardgames")


def _logs_hold_nothing_personal(caplog, *secrets):
    assert any(r.name == "cardgames.messages" for r in caplog.records)   # the messages' own lines were seen
    text = "\n".join(r.getMessage() for r in caplog.records) + caplog.text
    for secret in secrets:
        assert secret not in text


def test_a_registration_sends_its_manage_link_once_even_when_retried(api, wired, standins, caplog, clock):
    _log_everything_ours(caplog)
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid, fee={"amount": 0})
    first = register(api, eid, _body(), key="retry-key-0000001")
    again = register(api, eid, _body(), key="retry-key-0000001")          # the phone's retry after a lost answer
    assert first.status_code == 201, first.data
    assert again.data["entry"]["id"] == first.data["entry"]["id"]
    entry_id, token = first.data["entry"]["id"], first.data["manage_token"]
    assert deliver_due(bootstrap.deps(), clock()) == {"sent": 1, "retry": 0, "failed": 0, "skipped": 0}
    assert deliver_due(bootstrap.deps(), clock() + timedelta(hours=1))["sent"] == 0
    [sms] = standins.sms
    assert sms["provider"] == "tencent" and sms["to"] == "+86" + PHONE and sms["kind"] == "registration_received"
    link = sms["params"]["link"]
    assert link.endswith(f"/entry.html?id={entry_id}#token={token}")
    opened = api.get(f"/entries/{entry_id}", token=None, headers={"X-Manage-Token": link.split("#token=")[1]})
    assert opened.status_code == 200                         # the link sent is one that works
    [line] = [json.loads(x) for x in wired.read_text().splitlines()]
    assert line["to"] == PHONE and line["template"] == "registration_received" and link in line["text"]
    [stored] = bootstrap.deps().repos.messages.for_tournament(tid)
    assert stored.state == "sent" and stored.tries == 1 and "link" not in stored.params   # no credential kept
    _logs_hold_nothing_personal(caplog, PHONE, token, link)


def test_a_provider_down_is_retried_with_back_off_then_marked_failed(api, wired, standins, caplog, clock):
    _log_everything_ours(caplog)
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid, fee={"amount": 0})
    token = register(api, eid, _body(), key="retry-key-0000002").data["manage_token"]
    standins.fail_next(record.MAX_TRIES)
    at, outcomes = clock(), []
    for n in range(record.MAX_TRIES):
        if n:   # nothing is tried before its back-off has passed
            assert deliver_due(bootstrap.deps(), at - timedelta(seconds=1)) == {"sent": 0, "retry": 0, "failed": 0,
                                                                                "skipped": 0}
        outcomes.append(deliver_due(bootstrap.deps(), at))
        [m] = bootstrap.deps().repos.messages.for_tournament(tid)
        at = m.next_at
    assert [o["retry"] for o in outcomes] == [1, 1, 1, 1, 0] and outcomes[-1]["failed"] == 1
    [m] = bootstrap.deps().repos.messages.for_tournament(tid)
    assert m.state == "failed" and m.tries == record.MAX_TRIES and m.error == "unavailable"
    assert standins.sms == [] and standins.refused == ["InternalError"] * record.MAX_TRIES
    assert deliver_due(bootstrap.deps(), at + timedelta(days=1))["sent"] == 0   # failed stays failed
    _logs_hold_nothing_personal(caplog, PHONE, token)


def test_the_console_lists_the_tournaments_messages_masked_and_the_director_notices_the_unpaid(
        api, other_api, wired, standins, clock):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    free = make_event(api, tid, fee={"amount": 0})
    paid = make_event(api, tid, name="双扣", fee={"amount": 5000})
    register(api, free, _body())
    register(api, paid, _body("13700001111"))
    listed = api.get(f"/tournaments/{tid}/messages")
    assert listed.status_code == 200
    assert sorted(m["to"] for m in listed.data["messages"]) == ["137****1111", "139****5678"]
    assert {m["state"] for m in listed.data["messages"]} == {"queued"}
    assert PHONE not in json.dumps(listed.data)
    assert other_api.get(f"/tournaments/{tid}/messages").status_code == 404

    body = {"text": "第二轮 14:30 开始", "to": "unpaid"}
    key = {"Idempotency-Key": "notice-key-000000001"}
    sent = api.post(f"/tournaments/{tid}/messages", body, headers=key)
    assert sent.status_code == 202 and sent.data == {"queued": 1, "entries": 1}
    assert api.post(f"/tournaments/{tid}/messages", body, headers=key).data["queued"] == 0   # a retry: nothing new
    assert api.post(f"/tournaments/{tid}/messages", {"text": "x", "to": "everyone"}).status_code == 400
    assert deliver_due(bootstrap.deps(), clock())["sent"] == 3
    notice = [s for s in standins.sms if s["kind"] == "notice"]
    assert [(n["to"], n["params"]["text"]) for n in notice] == [("+8613700001111", "第二轮 14:30 开始")]
    states = {m["template"]: m["state"] for m in api.get(f"/tournaments/{tid}/messages").data["messages"]}
    assert states == {"registration_received": "sent", "notice": "sent"}


def test_the_manage_link_is_written_in_the_entrys_own_transaction(api, wired, monkeypatch):
    """No entry saved without its message, nor a message for an entry never saved: when the outbox item's write
    is refused, the whole registration is (and nothing of it stays)."""
    from chalicelib import errors
    from chalicelib.store.dynamo import Op
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid, fee={"amount": 0})
    repo = bootstrap.deps().repos.messages
    real = repo.queue_op

    def refused(message):
        op = real(message)
        return Op.put(op.item, condition="attribute_exists(PK)",
                      on_fail=errors.DuplicateEntry)
    monkeypatch.setattr(repo, "queue_op", refused)
    r = register(api, eid, _body(), key="retry-key-0000003")
    assert r.status_code >= 400
    assert api.get(f"/events/{eid}/entries").data["entries"] == []
    assert repo.for_tournament(tid) == []
    monkeypatch.setattr(repo, "queue_op", real)
    r = register(api, eid, _body(), key="retry-key-0000003")
    assert r.status_code == 201
    [m] = repo.for_tournament(tid)
    assert m.cause.startswith(f"registration:{r.data['entry']['id']}:") and m.kind == "registration_received"


def test_delivery_reports_turn_sent_into_delivered_or_failed(api, wired, standins, clock):
    from chalicelib.messages.outbox import collect_reports
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid, fee={"amount": 0})
    standins.unreachable.add("13700002222")
    register(api, eid, _body())
    register(api, eid, _body("13700002222"))
    assert deliver_due(bootstrap.deps(), clock())["sent"] == 2
    states = {m["to"]: m["state"] for m in api.get(f"/tournaments/{tid}/messages").data["messages"]}
    assert states == {"139****5678": "sent", "137****2222": "sent"}
    assert collect_reports(bootstrap.deps()) == {"delivered": 1, "undelivered": 1}
    assert collect_reports(bootstrap.deps()) == {"delivered": 0, "undelivered": 0}   # each report once
    got = {m["to"]: (m["state"], m["error"]) for m in api.get(f"/tournaments/{tid}/messages").data["messages"]}
    assert got == {"139****5678": ("delivered", None), "137****2222": ("failed", "undelivered")}
