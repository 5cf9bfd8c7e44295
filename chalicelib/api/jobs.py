"""Scheduled and event-driven handlers (registered on the app in app.py)."""
from __future__ import annotations

import logging

log = logging.getLogger("cardgames.jobs")


def sweep_holds(event=None) -> dict:
    from ..bootstrap import deps
    from ..services.payments import sweep_expired_holds
    result = sweep_expired_holds(deps())
    log.info("hold sweep: %s", result)
    result["retention"] = erase_due_contacts()
    return result


def erase_due_contacts() -> dict | None:
    """The retention sweep (services/retention.py), on the hold sweeper's schedule: finished tournaments' contact
    data past their organiser's retention. Its failure never fails the hold sweep: the next run goes on."""
    from ..bootstrap import deps
    from ..services.retention import sweep_contacts
    try:
        result = sweep_contacts(deps())
    except Exception as exc:   # noqa: BLE001 — logged by kind only; the next run starts again where this stopped
        log.warning("retention sweep failed (%s); tried again next run", type(exc).__name__)
        return None
    if any(result.values()):
        log.info("retention sweep: %s", result)
    return result


def deliver_messages(event=None) -> dict:
    """The outbox's worker (chalicelib/messages/outbox.py): what is due, tried once each."""
    from .. import services  # noqa: F401 — registers the outbox's jobs the services do (final places: reactions.py)
    from ..bootstrap import deps
    from ..messages.outbox import collect_reports, deliver_due, queue_holds_ending
    d = deps()
    queue_holds_ending(d, d.clock())   # "10 minutes left" for the holds about to end, sent in the same pass
    result = deliver_due(d)
    result.update(collect_reports(d))   # the providers' delivery reports: sent → delivered | failed
    if any(result.values()):
        log.info("messages: %s", result)
    return result


def deliver_nudged(event=None) -> dict:
    """The messages queue's consumer (messages/nudge.py): a request queued an urgent job (an organiser's reset, a
    round's draw) and nudged; one pass of the worker over what is due, so it goes within seconds. A batch of nudges
    is one pass. Two passes at once send nothing twice (each message is claimed before it is tried). Never raises:
    a nudge is a hint, and a failed batch retried by SQS would come after the scheduled minute's pass anyway."""
    from .. import services  # noqa: F401 — registers the outbox's jobs the services do (the reset's: reactions.py)
    from ..bootstrap import deps
    from ..messages.outbox import deliver_due
    try:
        result = deliver_due(deps())
    except Exception as exc:   # noqa: BLE001 — logged by kind only; the scheduled pass tries again within a minute
        log.warning("messages (nudged): the pass failed (%s); the scheduled pass covers it", type(exc).__name__)
        return {"error": type(exc).__name__}
    if any(result.values()):
        log.info("messages (nudged): %s", result)
    return result


class PublishFailed(RuntimeError):
    pass


def publish_from_queue(event) -> dict:
    """Each message names a tournament and a publish scope (an event, or the tournament-wide pages: several
    consumers publish one tournament's events side by side); several messages of one scope publish it once. A
    message of every scope ("*", or one sent before scopes) is fanned out: a message per scope, back on the queue."""
    import json

    from ..bootstrap import deps
    from ..services.live_tables import on_tournament_changed
    from ..services.publish_requests import EVERY, event_ids, scoped_asks
    from ..services.publishing import publish_latest
    asked: dict[tuple[str, str], list[str]] = {}
    for record in event:
        body = json.loads(record.body)
        asked.setdefault((body["tournament_id"], body.get("scope", EVERY)), []).extend(body.get("changes") or ["*"])
    d = deps()
    for (tid, scope), changes in sorted(asked.items()):
        # an exception returns the batch to the queue, then to the DLQ — raised without its message or chain,
        # which the Lambda runtime would log
        try:
            # the phones' live JSON of a round-wide change (issue 43; a table's: by its request), once a request
            if (scope == EVERY and "*" in changes) or any(c.startswith("event:") for c in changes):
                on_tournament_changed(d, tid)
            if scope == EVERY and not d.publish_queue.inline:
                for each, its in scoped_asks(changes, lambda t=tid: event_ids(d, t)).items():
                    d.publish_queue.ask(d, tid, its, scope=each)
            else:
                publish_latest(d, tid, changes=changes, scope=None if scope == EVERY else scope)
        except Exception as exc:   # noqa: BLE001 — any failure returns the batch to the queue, logged without its chain
            from ..publish.failures import log_failure
            log_failure(tid, exc)
            raise PublishFailed(f"publishing tournament {tid} failed ({type(exc).__name__})") from None
    return {"published": len(asked)}
