"""What follows from the day's domain events: the handlers the message bus runs after a change is committed
(registered on import into the domain bus's registry, which bootstrap's bus reads; see docs/domain.md for which must survive a crash on AWS and how).

Services that change a record no longer call the publisher themselves (nor import each other to react to a
change): they dispatch the events their transitions returned, and the reactions live here, in one place. They call `publish_requests.request_publish` through its module, so a test that replaces it
(as the queue does in AWS) is heard."""
from __future__ import annotations

from ..domain import events as ev
from ..domain.bus import register
from ..messages import outbox
from . import live_tables, organiser_recovery, publish_requests, ranking_pages, rankings
from .messages import tell_final_places
from .publish_requests import HALL_CHANGE, event_change, table_change


def publish_table(deps, event: ev.TableEvent) -> None:
    """A table's result changed in a way the public sees: that table's pages (issue 29)."""
    publish_requests.request_publish(deps, event.tournament_id, table_change(event.event_id, event.stage, event.round_no, event.table_no))


def publish_tournament(deps, event) -> None:
    """A change to one event's pages (a draw, a close, an edit, a team match scored): that event's publish, and the
    tournament-wide pages' when what they show of it moved (issue 43)."""
    publish_requests.request_publish(deps, event.tournament_id, event_change(event.event_id))


def publish_hall(deps, event: ev.HallChanged) -> None:
    publish_requests.request_publish(deps, event.tournament_id, HALL_CHANGE)


def rate_table(deps, event: ev.TableEvent) -> None:
    """A table's result stands (or was corrected): the rankings counting its event rate it (issue 42); counted
    once per table version, so a retried dispatch changes nothing."""
    rankings.on_result_confirmed(deps, event.tournament_id, event.event_id, event.stage, event.round_no,
                                 event.table_no, event.version)


def publish_rankings(deps, event: ev.RoundClosed) -> None:
    """A closed round moves the rankings counting its event: their pages (issue 42)."""
    ranking_pages.on_round_closed(deps, event.tournament_id, event.event_id, event.stage, event.round_no)


def live_table(deps, event: ev.TableEvent) -> None:
    """A change the public pages do not show but the table's phones do (an entry waiting for confirmation, a
    dispute, a room, a lineup, an arrival): that table's live JSON only (issue 43). Changes that ask for a publish
    write it on the way (publish_requests), so they are not listed here."""
    live_tables.on_table_changed(deps, event.tournament_id, event.event_id, event.stage, event.round_no, event.table_no)


def live_appeal(deps, event: ev.AppealEvent) -> None:
    """An appeal lodged or decided shows on its table's phones (issue 43's live JSON)."""
    live_tables.on_table_of(deps, event.event_id, event.round_no, event.table_no)


def ask_to_confirm(deps, event: ev.ResultEntered) -> None:
    """The other side is asked to confirm the result entered (issue 41's messages: once per table version)."""
    outbox.on_result_entered(deps, event.tournament_id, event.event_id, event.stage, event.round_no, event.table_no,
                             event.version)


def tell_draw(deps, event: ev.RoundDrawn) -> None:
    """Each player's table, seat and start time (issue 41's messages: once per round and player), queued by the
    outbox's worker from one job item written here."""
    outbox.queue_draw(deps, event.tournament_id, event.event_id, event.stage, event.round_no)


def check_final(deps, event: ev.RoundClosed | ev.AppealDecided) -> None:
    """The last round closed, or the last open appeal decided: each entry's final place and prize (issue 41),
    looked at by the outbox's worker."""
    outbox.queue_final_check(deps, event.tournament_id, event.event_id, type(event).__name__)


HANDLERS: dict[type[ev.Event], list] = {
    ev.ResultEntered: [live_table, ask_to_confirm],
    ev.SideConfirmed: [live_table],
    ev.DisputeRaised: [live_table],
    ev.RoomResultEntered: [live_table],
    ev.RoomResultConfirmed: [live_table],
    ev.RoomDisputed: [live_table],
    ev.LineupAnnounced: [live_table],
    ev.ArrivalRecorded: [live_table],
    ev.AppealLodged: [live_appeal],
    ev.AppealDecided: [live_appeal, outbox.on_appeal_decided, check_final],
    ev.ResultConfirmed: [publish_table, rate_table],
    ev.ResultCorrected: [publish_table, rate_table],
    ev.DisputeSettled: [publish_table, rate_table, outbox.on_dispute_settled],
    ev.ForfeitRecorded: [publish_table],
    ev.TeamMatchConfirmed: [publish_tournament, rate_table],
    ev.RoundDrawn: [publish_tournament, tell_draw],
    ev.RoundClosed: [publish_tournament, publish_rankings, check_final],
    ev.RoundEdited: [publish_tournament],
    ev.HallChanged: [publish_hall],
    # issue 41's messages, each queued once per cause. The manage link, a promotion's deadline, the fee paid and
    # a refund the platform sends are written in their change's own transaction (registration.py, payments.py);
    # PaymentRefunded's handler covers the provider's own reports (a refund sent already finds its message).
    ev.PaymentFailed: [outbox.on_payment_failed],
    ev.PaymentRefunded: [outbox.on_payment_refunded],
    ev.HoldReleased: [outbox.on_hold_released],
}
for _event_type, _handlers in HANDLERS.items():
    register(_event_type, *_handlers)
outbox.JOBS["final_places"] = lambda deps, params: tell_final_places(deps, params["event_id"])
outbox.JOBS[organiser_recovery.JOB] = organiser_recovery.send_reset_code
