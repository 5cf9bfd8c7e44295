"""A message to a participant as a record (design.md v1.3 "Messages"): what it says (a template and its
parameters, in the participant's language), to whom on which channel, why (its cause: one message per cause and
channel, however often the cause is retried), and where it is: queued → sent → delivered | failed. Pure: every
transition takes `now`; the outbox (store/messages.py) keeps it, the worker (messages/outbox.py) moves it."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict

# "job": not a message but the fan-out of one cause into its messages, done by the worker (a draw's hundreds of
# players are too many writes for the draw's own request); queued, claimed and settled as a message is.
Channel = Literal["sms", "email", "wechat", "job"]
State = Literal["queued", "sent", "delivered", "failed"]

MAX_TRIES = 5                      # then failed: the console shows it and the desk can help
FIRST_RETRY_S, LAST_RETRY_S = 30, 3600
QUIET_FROM, QUIET_UNTIL = 21, 8    # the tournament's local hours in which nothing non-urgent is sent

# What must reach a player at once whatever the hour: a code, their place's deadline, their table, a result
# that waits for them, the link they just asked for, the director's notice (sent now because it matters now: an
# evening session's delay cannot wait for the morning). The rest — a refund, a decided appeal, a prize — waits for
# the morning in the tournament's zone. The jobs that make urgent messages are due at once too.
URGENT = frozenset({"sign_in_code", "organiser_code", "registration_received", "waitlist_promoted", "hold_ending", "draw",
                    "confirm_result", "notice", "payment_failed", "draw_round", "organiser_reset"})


class Message(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)   # built on first use: the cold start stays short

    id: str
    cause: str                     # e.g. "registration:<entry id>": the same cause never makes two messages
    kind: str                      # the template (messages/templates.py)
    channel: Channel
    to: str                        # phone key form (phones.py) or e-mail; never logged, masked in answers
    lang: str = "zh-CN"
    params: dict[str, str] = {}
    secret_params: tuple[str, ...] = ()   # dropped once sent (a manage link is a credential)
    tournament_id: str | None = None
    state: State = "queued"
    tries: int = 0
    next_at: datetime
    created_at: datetime
    sent_at: datetime | None = None
    provider: str | None = None
    provider_id: str | None = None
    error: str | None = None       # the last failure's kind: "unavailable", "refused", "no_sender" …

    @property
    def urgent(self) -> bool:
        return self.kind in URGENT

    @property
    def key(self) -> str:
        """Its identity in the outbox: cause and channel."""
        return f"{self.cause}#{self.channel}"


def new(*, id: str, cause: str, kind: str, channel: Channel, to: str, now: datetime, lang: str = "zh-CN",
        params: dict | None = None, secret_params: tuple[str, ...] = (), tournament_id: str | None = None,
        tz: str = "Asia/Shanghai") -> Message:
    """A queued message, due now or, when not urgent, at the end of the quiet hours of the tournament's zone."""
    draft = Message(id=id, cause=cause, kind=kind, channel=channel, to=to, lang=lang,
                    params={k: str(v) for k, v in (params or {}).items()}, secret_params=secret_params,
                    tournament_id=tournament_id, next_at=now, created_at=now)
    return draft if draft.urgent else draft.model_copy(update={"next_at": outside_quiet_hours(now, tz)})


def outside_quiet_hours(now: datetime, tz: str) -> datetime:
    """`now`, or the next QUIET_UNTIL o'clock in `tz` when `now` falls within the quiet hours there."""
    local = now.astimezone(ZoneInfo(tz))
    if QUIET_UNTIL <= local.hour < QUIET_FROM:
        return now
    morning = local.replace(hour=QUIET_UNTIL, minute=0, second=0, microsecond=0)
    if local.hour >= QUIET_FROM:
        morning += timedelta(days=1)
    return morning.astimezone(now.tzinfo)


def back_off(tries: int) -> timedelta:
    """After the `tries`-th failed try: 30 s, 1, 2, 4 … minutes, at most an hour."""
    return timedelta(seconds=min(FIRST_RETRY_S * 2 ** max(tries - 1, 0), LAST_RETRY_S))


def tried(message: Message, now: datetime) -> Message:
    """A try begins (the worker has claimed it): counted before the provider is asked, so a crash mid-send is
    still a try."""
    return message.model_copy(update={"tries": message.tries + 1})


def sent(message: Message, now: datetime, provider: str, provider_id: str | None) -> Message:
    params = {k: v for k, v in message.params.items() if k not in message.secret_params}
    return message.model_copy(update={"state": "sent", "sent_at": now, "provider": provider,
                                      "provider_id": provider_id, "error": None, "params": params})


def failed_try(message: Message, now: datetime, error: str, *, permanent: bool = False) -> Message:
    """A try that did not send: again after the back-off, or failed for good after MAX_TRIES (or at once when
    the provider refused it for a reason a retry cannot change: a bad number, a template not approved)."""
    if permanent or message.tries >= MAX_TRIES:
        params = {k: v for k, v in message.params.items() if k not in message.secret_params}
        return message.model_copy(update={"state": "failed", "error": error, "params": params})
    return message.model_copy(update={"error": error, "next_at": now + back_off(message.tries)})


def delivered(message: Message) -> Message:
    return message.model_copy(update={"state": "delivered"}) if message.state == "sent" else message


def masked(to: str) -> str:
    """What an answer shows of an address: 138****5678, +8491****678, a***@example.com."""
    if "@" in to:
        name, _, domain = to.partition("@")
        return f"{name[:1]}***@{domain}"
    return to[:-8] + "****" + to[-4:] if len(to) > 8 else "****"
