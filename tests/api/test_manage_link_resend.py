"""The desk sends a manage link again (issue 41): a new link replaces the lost one, goes by SMS through the real
Tencent Cloud SDK to its stand-in when the worker runs, and opens the entry (the old one no longer does); once a
minute per entry; a scorer may not; an entry without a phone is told so; a day's registration gets its one link."""
from __future__ import annotations


from chalicelib import bootstrap
from chalicelib.messages.outbox import deliver_due
from tests.api.play import setup_event
from tests.factories import doudizhu_event, tournament_body

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 3}]}


def test_the_desk_resends_a_new_link_that_opens_the_entry_once_a_minute(api, wired):
    tid, eid, ids = setup_event(api, CFG, [])
    reg = api.post(f"/events/{eid}/entries", {"members": [{"name": "甲", "phone": "13511112222"}, {"name": "乙"}]},
                   token=None)
    entry_id, first_token = reg.data["entry"]["id"], reg.data["manage_token"]
    bare = api.post(f"/events/{eid}/entries", {"members": [{"name": "丙", "phone": "13599990000"}, {"name": "丁"}]},
                    token=None)
    staff = {role: api.post(f"/tournaments/{tid}/staff", {"name": role, "role": role}).data["token"]
             for role in ("desk", "scorer")}
    deliver_due(bootstrap.deps())
    wired.sms.clear()

    assert api.post(f"/events/{eid}/entries/{entry_id}/manage-link", {}, token=staff["scorer"]).status_code == 403
    sent = api.post(f"/events/{eid}/entries/{entry_id}/manage-link", {}, token=staff["desk"])
    assert sent.status_code == 202 and sent.data["sent_to"] == ["135****2222"], sent.data
    again = api.post(f"/events/{eid}/entries/{entry_id}/manage-link", {}, token=staff["desk"])
    assert again.status_code == 429 and again.data["code"] == "rate_limited"
    assert deliver_due(bootstrap.deps())["sent"] == 1                   # the worker, through the real SDK
    [sms] = [s for s in wired.sms if s["to"] == "+8613511112222"]
    link = sms["params"]["link"]
    assert sms["kind"] == "registration_received" and f"entry.html?id={entry_id}#token=" in link
    token = link.split("#token=")[1]
    opened = api.get(f"/entries/{entry_id}", token=None, headers={"X-Manage-Token": token})
    assert opened.status_code == 200 and opened.data["id"] == entry_id
    assert api.get(f"/entries/{entry_id}", token=None, headers={"X-Manage-Token": first_token}).status_code == 404   # as any wrong link
    bootstrap.deps().clock.advance(seconds=61)
    assert api.post(f"/events/{eid}/entries/{entry_id}/manage-link", {}).status_code == 202     # the organiser too
    gone = bootstrap.deps().repos.entries.get(eid, bare.data["entry"]["id"])   # its contact data erased (retention)
    bootstrap.deps().repos.retention.erase_entry(gone, gone.model_copy(update={
        "members": [m.model_copy(update={"phone": None}) for m in gone.members], "version": gone.version + 1}))
    no_phone = api.post(f"/events/{eid}/entries/{bare.data['entry']['id']}/manage-link", {}, token=staff["desk"])
    assert no_phone.status_code == 409 and no_phone.data["code"] == "no_contact"


def test_a_day_registration_gets_its_one_link_again(api, wired):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eids = [api.post(f"/tournaments/{tid}/events", doudizhu_event(name=n)).data["id"]
            for n in ("甲项", "乙项")]
    day = api.post(f"/tournaments/{tid}/registrations", {
        "contact": {"name": "联系人", "phone": "13533334444"},
        "items": [{"event_id": e, "members": [{"name": "戊", "phone": "13533334444"}]} for e in eids]}, token=None)
    assert day.status_code in (200, 201), day.data
    reg_id = day.data["registration"]["id"]
    entry_id = day.data["registration"]["items"][0]["entry"]["id"]
    deliver_due(bootstrap.deps())                                       # the registration's own message first
    wired.sms.clear()
    assert api.post(f"/events/{eids[0]}/entries/{entry_id}/manage-link", {}).status_code == 202
    deliver_due(bootstrap.deps())
    [sms] = [s for s in wired.sms if s["to"] == "+8613533334444"]
    token = sms["params"]["link"].split("#token=")[1]
    assert f"entry.html?reg={reg_id}#token=" in sms["params"]["link"]
    got = api.get(f"/registrations/{reg_id}", token=None, headers={"X-Manage-Token": token})
    assert got.status_code == 200, got.data
    assert api.get(f"/registrations/{reg_id}", token=None,
                   headers={"X-Manage-Token": day.data["manage_token"]}).status_code == 404


def test_links_to_one_phone_are_limited_whichever_entry_asks(api, wired):
    """Review finding: the once-a-minute limit was per entry only, so a phone on many entries (a day's events, or a
    desk's script) could be sent a link per entry at once. Per phone: one a minute, five a day."""
    tid, eid, _ = setup_event(api, CFG, [])
    eid2 = api.post(f"/tournaments/{tid}/events", {**CFG, "name": "掼蛋二"}).data["id"]
    phone = "13566667777"
    ids = [api.post(f"/events/{e}/entries", {"members": [{"name": f"甲{n}", "phone": phone}, {"name": f"乙{n}"}]},
                    token=None).data["entry"]["id"] for n, e in enumerate((eid, eid2))]
    other = api.post(f"/events/{eid}/entries", {"members": [{"name": "丙", "phone": "13566668888"}, {"name": "丁"}]},
                     token=None).data["entry"]["id"]
    assert api.post(f"/events/{eid}/entries/{ids[0]}/manage-link", {}).status_code == 202
    limited = api.post(f"/events/{eid2}/entries/{ids[1]}/manage-link", {})     # another entry, the same phone
    assert limited.status_code == 429 and limited.data["code"] == "manage_link_phone_limited", limited.data
    assert limited.data["details"]["limit"] == "phone" and limited.headers["Retry-After"] == "60"
    assert api.post(f"/events/{eid}/entries/{other}/manage-link", {}).status_code == 202   # another phone: sent
    for _ in range(4):                                                           # five a day in all
        bootstrap.deps().clock.advance(seconds=61)
        assert api.post(f"/events/{eid2}/entries/{ids[1]}/manage-link", {}).status_code == 202
    bootstrap.deps().clock.advance(seconds=61)
    sixth = api.post(f"/events/{eid}/entries/{ids[0]}/manage-link", {})
    assert sixth.status_code == 429 and sixth.data["details"]["limit"] == "phone_day"
    deliver_due(bootstrap.deps())
    assert len([s for s in wired.sms if s["to"] == "+86" + phone and s["kind"] == "registration_received"]) == 2 + 5
