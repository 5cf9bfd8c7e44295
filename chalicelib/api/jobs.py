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
    """Each message names a tournament; several messages for one tournament publish it once."""
    import json

    from ..bootstrap import deps
    from ..services.live_tables import on_tournament_changed
    from ..services.publishing import publish_latest
    tournaments: dict[str, list[str]] = {}
    for record in event:
        body = json.loads(record.body)
        tournaments.setdefault(body["tournament_id"], []).extend(body.get("changes") or ["*"])
    for tid in sorted(tournaments):
        # one publisher per tournament (several functions may run); an exception returns the batch to the
        # queue, then to the DLQ — raised without its message or chain, which the Lambda runtime would log
        try:
            if any(c == "*" or c.startswith("event:") for c in tournaments[tid]):   # the phones' live JSON of a round-wide change (issue 43; a table's: by its request)
                on_tournament_changed(deps(), tid)
            publish_latest(deps(), tid, changes=tournaments[tid])
        except Exception as exc:   # noqa: BLE001 — any failure returns the batch to the queue, logged without its chain
            from ..publish.failures import log_failure
            log_failure(tid, exc)
            raise PublishFailed(f"publishing tournament {tid} failed ({type(exc).__name__})") from None
    return {"published": len(tournaments)}
