"""The result services over in-memory repositories (tests/memory_repos.py): load → transition → save →
dispatch, the audit rows written with each change, and a table's whole life — entered, disputed, settled,
corrected after the round closed (past the window: the director's override), the redraw offered — in a
fraction of a second, without moto or DynamoDB."""
from __future__ import annotations

from datetime import datetime, timedelta, UTC

import pytest

from chalicelib import bootstrap, errors
from chalicelib.domain import events as ev
from chalicelib.domain.actor import Actor
from chalicelib.domain.bus import RecordingBus
from chalicelib.domain.table import Table
from chalicelib.models import Event
from chalicelib.models.events import EventConfig
from chalicelib.services import results
from tests.factories import guandan_event
from tests.memory_repos import MemoryRepos

T0 = datetime(2026, 12, 12, 2, 0, tzinfo=UTC)
NS, EW = Actor("side", "table 1 side 1", side=0), Actor("side", "table 1 side 2", side=1)
DIRECTOR = Actor("organiser", "staff:s1:王裁判:director")


class Clock:
    def __init__(self):
        self.now = T0

    def __call__(self):
        return self.now


@pytest.fixture
def day():
    repos, clock = MemoryRepos(), Clock()
    config = EventConfig.model_validate(guandan_event(stages=[{"format": "swiss", "rounds": 2}]))
    repos.events.put(Event(id="E1", tournament_id="T1", organiser_id="O1", config=config, created_at=T0))
    for n in (1, 2):
        doc = {"event_id": "E1", "stage": 0, "number": n, "stage_round": n, "status": "open", "ends_at": None}
        repos.rounds.seed_round("E1", doc, [Table.new(1, [("A", ["N", "S"]), ("B", ["E", "W"])], ["h1", "h2"],
                                                      "swiss", None).to_item()])
    repos.rounds.states["E1"]["plans"] = {"0": {"rounds": 2}}
    deps = bootstrap.Deps(repos=repos, clock=clock, bus=RecordingBus())
    return deps, repos, clock


LEVELS = {"final": {"levels": {"A": 14, "B": 9}}}


def test_a_tables_whole_life(day):
    deps, repos, clock = day
    out = results.submit_result(deps, "E1", 1, 1, {"version": 0, **LEVELS}, NS)
    assert (out.status, out.version) == ("entered", 1)
    with pytest.raises(errors.VersionConflict):   # a second phone on the old version: refused and audited
        results.submit_result(deps, "E1", 1, 1, {"version": 0, **LEVELS}, NS)
    results.dispute_result(deps, "E1", 1, 1, "第3副牌记错", EW)
    out = results.submit_result(deps, "E1", 1, 1, {"version": 2, "reason": "核对记分卡",
                                                   "final": {"levels": {"A": 9, "B": 14}}}, DIRECTOR)
    assert (out.status, out.version, out.redraw_offered) == ("confirmed", 3, False)
    # the round closes; 31 minutes later (the window is 30) only the director's override corrects it
    repos.rounds.docs[("E1", 0, 1)].update(status="closed", closed_at=T0.isoformat())
    clock.now = T0 + timedelta(minutes=31)
    with pytest.raises(errors.CorrectionWindowClosed):
        results.submit_result(deps, "E1", 1, 1, {"version": 3, "reason": "late", **LEVELS}, DIRECTOR)
    out = results.submit_result(deps, "E1", 1, 1, {"version": 3, "reason": "记分卡", "override": True, **LEVELS},
                                DIRECTOR)
    assert (out.status, out.version) == ("confirmed", 4)
    assert out.redraw_offered is True   # round 2 is drawn and this is a stage's last two rounds: a redraw is offered
    stored = repos.rounds.get_table("E1", 0, 1, 1)[1]
    assert stored["overridden"] is True and stored["settled_dispute"]["reason"] == "第3副牌记错"
    assert [r["action"] for r in repos.rounds.audit("E1")] == [
        "result_entered", "rejected_stale_version", "result_disputed", "dispute_settled", "result_overridden"]
    assert [type(e) for e in deps.bus.events] == [ev.ResultEntered, ev.DisputeRaised, ev.DisputeSettled,
                                                  ev.ResultCorrected]
    assert deps.bus.events[-1] == ev.ResultCorrected("T1", "E1", 0, 1, 1, 4, action="result_overridden",
                                                     overridden=True)


def test_confirmation_and_the_publish_it_asks_for(day, monkeypatch):
    deps, repos, _ = day
    from chalicelib.services import publish_requests
    asked = []
    monkeypatch.setattr(publish_requests, "request_publish", lambda d, tid, change=None: asked.append(change))
    deps.bus = bootstrap.message_bus()
    results.submit_result(deps, "E1", 2, 1, {"version": 0, **LEVELS}, NS)
    assert asked == []   # an entry waits for the other side: nothing public changed
    with pytest.raises(errors.Forbidden):
        results.confirm_result(deps, "E1", 2, 1, NS)
    out = results.confirm_result(deps, "E1", 2, 1, EW)
    assert (out.status, out.version) == ("confirmed", 2) and asked == ["table:E1:0:2:1"]
    record = repos.rounds.audit("E1")[-1]
    assert record["before"]["status"] == "entered" and record["after"] == {
        "status": "confirmed", "version": 2, "points": out.points, "result": LEVELS}


def test_a_failed_save_writes_nothing_and_dispatches_nothing(day, monkeypatch):
    deps, repos, _ = day
    real = repos.rounds.save_table

    def someone_first(eid, stage, n, table, expected, audit):
        repos.rounds.tables[(eid, stage, n, table["number"])] = repos.rounds.tables[(eid, stage, n, table["number"])] \
            .replace('"version": 0', '"version": 1')   # another phone saved meanwhile
        return real(eid, stage, n, table, expected, audit)
    monkeypatch.setattr(repos.rounds, "save_table", someone_first)
    with pytest.raises(errors.VersionConflict):
        results.submit_result(deps, "E1", 2, 1, {"version": 0, **LEVELS}, NS)
    assert deps.bus.events == []
    assert [r["action"] for r in repos.rounds.audit("E1")] == ["rejected_stale_version"]


def test_an_upheld_appeal_corrects_the_table_and_refunds_the_fee(day):
    deps, repos, clock = day
    from chalicelib.models import Organiser, Tournament
    from chalicelib.services import referee
    from tests.factories import tournament_body
    repos.tournaments.put(Tournament.model_validate({**tournament_body(), "id": "T1", "organiser_id": "O1",
                                                     "created_at": T0}))
    event = repos.events.get("E1")
    repos.events.put(event.model_copy(update={"config": event.config.model_copy(update={
        "appeals": event.config.appeals.model_copy(update={"fee": 200, "window_minutes": 10}),
        "entry": event.config.entry.model_copy(update={"kind": "individual"})})}))   # no pair consent asked
    organiser = Organiser(id="O1", name="商会", created_at=T0)
    results.submit_result(deps, "E1", 1, 1, {"version": 0, **LEVELS}, NS)
    results.confirm_result(deps, "E1", 1, 1, EW)
    with pytest.raises(errors.Forbidden):   # a side appeals in its own name
        referee.lodge_appeal(deps, "E1", 1, 1, "A", "对方违例", EW)
    appeal = referee.lodge_appeal(deps, "E1", 1, 1, "B", "对方违例", EW)
    assert (appeal.status, appeal.fee_status, appeal.fee.amount) == ("lodged", "due", 200)
    with pytest.raises(errors.Conflict):   # the fee first
        referee.decide_appeal(deps, organiser, appeal.id, "upheld", "成立", None, DIRECTOR)
    referee.record_appeal_fee(deps, organiser, appeal.id, "cash", DIRECTOR)
    repos.rounds.docs[("E1", 0, 1)].update(status="closed", closed_at=T0.isoformat())
    clock.now = T0 + timedelta(hours=2)   # the correction window closed: an upheld appeal corrects the table anyway
    decided = referee.decide_appeal(deps, organiser, appeal.id, "upheld", "成立", {"final": {"levels": {"A": 9, "B": 14}}},
                                    DIRECTOR)
    assert (decided.status, decided.fee_status, decided.version) == ("decided", "refunded", 3)
    table = repos.rounds.get_table("E1", 0, 1, 1)[1]
    assert table["winner"] == "B" and table["overridden"] is True and table["version"] == 3
    assert [type(e) for e in deps.bus.events][-3:] == [ev.AppealFeePaid, ev.ResultCorrected, ev.AppealDecided]
    assert [r["action"] for r in repos.rounds.audit("E1")][-4:] == [
        "appeal_lodged", "appeal_fee_paid", "result_overridden", "appeal_decided"]
    assert repos.rounds.audit("E1")[-2]["appeal"] == appeal.id
