"""The message bus: handlers by event type, in order; a failing handler neither stops the others nor fails the
change that raised the event."""
from __future__ import annotations

from chalicelib import bootstrap
from chalicelib.domain import events as ev
from chalicelib.domain.bus import MessageBus

CONFIRMED = ev.ResultConfirmed("T1", "E1", 0, 2, 5, 3)


def test_handlers_run_for_their_event_type_only():
    seen = []
    bus = MessageBus({ev.ResultConfirmed: [lambda d, e: seen.append(("a", e)), lambda d, e: seen.append(("b", e))],
                      ev.RoundClosed: [lambda d, e: seen.append(("closed", e))]})
    bus.dispatch(None, [CONFIRMED, ev.ResultEntered("T1", "E1", 0, 2, 5, 2)])
    assert seen == [("a", CONFIRMED), ("b", CONFIRMED)]   # a subclass or sibling is not the registered type


def test_a_failing_handler_is_logged_and_the_next_one_runs(caplog):
    seen = []

    def broken(deps, event):
        raise RuntimeError("queue down")
    MessageBus({ev.ResultConfirmed: [broken, lambda d, e: seen.append(e)]}).dispatch(None, [CONFIRMED])
    assert seen == [CONFIRMED] and "queue down" in caplog.text


def test_bootstrap_registers_a_publish_for_what_the_public_sees(monkeypatch):
    from chalicelib.services import publish_requests
    asked = []
    monkeypatch.setattr(publish_requests, "request_publish", lambda deps, tid, change=None: asked.append((tid, change)))
    deps = bootstrap.Deps(repos=None)
    deps.dispatch([CONFIRMED, ev.ResultEntered("T1", "E1", 0, 2, 5, 2), ev.TeamMatchConfirmed("T1", "E1", 0, 2, 6, 9),
                   ev.RoundClosed("T1", "E1", 0, 2), ev.HallChanged("T1")])
    # a team match scored and a close are their event's changes (issue 43: events publish side by side)
    assert asked == [("T1", "table:E1:0:2:5"), ("T1", "event:E1"), ("T1", "event:E1"), ("T1", "hall")]
