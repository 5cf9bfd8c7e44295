"""The desk behind the payments port: cash and bank transfer. The money changes hands at the registration desk
(or a transfer the organiser checks), recorded there (POST …/payments); a refund is owed until the desk hands it
back (应退 → 已退). Nothing here calls anyone: there is no order to open, query or close, and no notification."""
from __future__ import annotations

from datetime import datetime

from .. import errors
from .port import Checkout, Notification


class DeskGateway:
    channels: tuple[str, ...] = ()
    online = False

    def __init__(self, name: str = "offline"):
        self.name = name   # "offline" as a tournament offers it; "cash" / "transfer" as a payment records it

    def start(self, *, payment_id: str, amount: int, currency: str, description: str, channel: str | None,
              expires_at: datetime, return_url: str, cancel_url: str = "", now: datetime | None = None,
              entry_id: str = "", event_id: str = "", lines: list[tuple[str, int]] | None = None,
              openid: str | None = None, client_ip: str | None = None) -> Checkout:
        raise errors.PaymentsOff("请到报到台付款 · Pay at the registration desk.")

    def session_status(self, reference: str) -> tuple[str, str | None, int | None, str | None]:
        return "open", None, None, None   # the desk has no order that could run out on its own

    def expire(self, reference: str) -> None:
        return None

    def refund(self, transaction_id: str | None, amount: int, payment_id: str, part: str = "", *,
               total: int, currency: str) -> str:
        raise errors.PaymentsOff("现金和转账由报到台退还 · Cash and transfers are handed back at the desk.")

    def verify_notification(self, headers: dict, body: bytes, now: datetime) -> Notification:
        raise errors.InvalidSignature("The desk sends no notifications.")


def desk_gateways() -> dict:
    """Always present, configured or not: the tournament's "offline" and the payments' "cash" and "transfer"."""
    return {name: DeskGateway(name) for name in ("offline", "cash", "transfer")}
