"""One checkout for a day's events (api.md v1.1): a registration groups the entries one person paid for."""
from __future__ import annotations

from chalice import Blueprint

from ..models import CheckoutAnswer, CheckoutIn, DayRegistration, DayRegistrationAnswer, DayRegistrationIn
from ..services import day_registration as svc
from .routing import route

bp = Blueprint(__name__)
TAG = "registration"


@route(bp, "/tournaments/{tid}/registrations", "POST", summary="Register for several events of the day, pay once",
       body=DayRegistrationIn, response=DayRegistrationAnswer, status=201, headers=("Idempotency-Key",), tag=TAG,
       errors_=("event_full", "registration_closed", "not_eligible", "roster_size", "phone_required",
                "idempotency_conflict", "duplicate_entry", "online_payment_off", "payment_unavailable", "rate_limited"))
def register_day(ctx, tid):
    return svc.register_day_public(ctx.deps, tid, ctx.body, ctx.header("idempotency-key"), client_ip=ctx.client)


@route(bp, "/registrations/{id}/checkout", "POST", summary="Pay online, once, for every item of a registration "
       "waiting for payment (Stripe, WeChat Pay, Alipay)", auth="manage", body=CheckoutIn, response=CheckoutAnswer,
       tag=TAG, errors_=("online_payment_off", "not_holding_place", "conflict", "payment_unavailable"))
def checkout_registration(ctx, id):
    return CheckoutAnswer(**svc.checkout(ctx.deps, id, ctx.header("x-manage-token"), ctx.body, client_ip=ctx.client))


@route(bp, "/registrations/{id}", "GET", summary="Every entry of a registration, by its manage link (我的比赛)",
       auth="manage", response=DayRegistration, tag=TAG)
def get_registration(ctx, id):
    svc.own_registration(ctx.deps, id, ctx.header("x-manage-token"))
    return svc.registration_view(ctx.deps, id)


@route(bp, "/registrations/{id}/items/{entry}", "DELETE", summary="Cancel one event of a registration (its part refunded)",
       auth="manage", response=DayRegistration, tag=TAG)
def cancel_item(ctx, id, entry):
    return svc.cancel_item(ctx.deps, id, ctx.header("x-manage-token"), entry)
