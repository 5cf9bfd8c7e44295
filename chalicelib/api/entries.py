"""Public registration and the participant's manage link."""
from __future__ import annotations

from chalice import Blueprint

from ..models import CheckoutAnswer, CheckoutIn, EntryPatch, EntryView, RegistrationAnswer, RegistrationIn
from ..services import registration as svc
from .routing import route

bp = Blueprint(__name__)
TAG = "registration"


@route(bp, "/events/{eid}/entries", "POST", summary="Register an entry", body=RegistrationIn,
       response=RegistrationAnswer, status=201, headers=("Idempotency-Key",), tag=TAG,
       errors_=("event_full", "registration_closed", "not_eligible", "roster_size", "phone_required",
                "idempotency_conflict", "payload_too_large", "rate_limited"))
def register(ctx, eid):
    return svc.register_public(ctx.deps, eid, ctx.body, ctx.header("idempotency-key"), ctx.client)


def _owned(ctx, id):
    """By the entry's manage link, or by the signed-in player whose phone it was made with (api.md v1.3
    "Players": the player session authorises what the link does, for the entries of its phone)."""
    player = ctx.header("x-player-token")
    if player and not ctx.header("x-manage-token"):
        from ..services import players
        return players.entry_for_player(ctx.deps, id, player)
    return svc.entry_for_token(ctx.deps, id, ctx.header("x-manage-token"))


@route(bp, "/entries/{id}", "GET", summary="An entry, by its manage link", auth="manage", headers=("X-Player-Token",), response=EntryView, tag=TAG)
def get_entry(ctx, id):
    return svc.view(ctx.deps, _owned(ctx, id))


@route(bp, "/entries/{id}", "PATCH", summary="Change roster or contact until the deadline", auth="manage", headers=("X-Player-Token",),
       body=EntryPatch, response=EntryView, tag=TAG,
       errors_=("changes_closed", "roster_size", "phone_required", "version_conflict", "entry_closed"))
def patch_entry(ctx, id):
    entry = _owned(ctx, id)
    return svc.view(ctx.deps, svc.update_entry(ctx.deps, entry, ctx.body))


@route(bp, "/entries/{id}", "DELETE", summary="Cancel (refund when paid and before the deadline)", auth="manage", headers=("X-Player-Token",),
       response=EntryView, tag=TAG)
def cancel_entry(ctx, id):
    entry = _owned(ctx, id)
    return svc.view(ctx.deps, svc.cancel_entry(ctx.deps, entry, reason="已取消 · Cancelled by the participant"))


@route(bp, "/entries/{id}/checkout", "POST", summary="Pay online for an entry holding a place", auth="manage", headers=("X-Player-Token",),
       body=CheckoutIn, response=CheckoutAnswer, tag=TAG,
       errors_=("online_payment_off", "not_holding_place", "conflict", "payment_unavailable"))
def checkout(ctx, id):
    entry = _owned(ctx, id)
    body = ctx.body
    from ..services import day_registration
    shared = day_registration.open_shared_payment(ctx.deps, entry)
    if shared:   # the entry's place is in a day's open payment: that one checkout, for all its items
        return CheckoutAnswer(**day_registration.checkout_items(ctx.deps, shared, body, client_ip=ctx.client))
    from ..services.payments import checkout_entry
    return CheckoutAnswer(**checkout_entry(ctx.deps, entry, body.provider, body.channel, body.openid,
                                           client_ip=ctx.client))
