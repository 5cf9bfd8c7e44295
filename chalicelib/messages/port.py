"""The one sender port every channel's adapter implements (like payments/port.py for money): services and the
worker see a `Sender`, never a provider's SDK."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .record import Message


@dataclass(frozen=True)
class Outcome:
    """A provider's answer: its id for the message, or the kind of failure ("unavailable" and "rate_limited"
    are tried again later; a `permanent` one — a bad number, a template not approved — is not)."""
    provider: str
    provider_id: str | None = None
    error: str | None = None
    permanent: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Report:
    """A provider's delivery report for a message it took: delivered to the phone, or not."""
    provider: str
    provider_id: str
    delivered: bool


class Sender(Protocol):
    name: str

    def send(self, message: Message, text: str) -> Outcome:
        """Sends it (`text`: the rendered words, for channels that carry text; China's SMS carries the approved
        template's code and the message's parameters instead). Never raises for a provider's failure."""
        ...


class SmsRouter:
    """SMS by number: a mainland mobile (11 digits, phones.py's key form) through the Chinese provider, which
    needs the platform's signature and approved templates; any other number (E.164) through Amazon SNS."""
    name = "sms"

    def __init__(self, mainland: Sender | None, abroad: Sender | None):
        self.mainland, self.abroad = mainland, abroad

    def send(self, message: Message, text: str) -> Outcome:
        sender = self.abroad if message.to.startswith("+") else self.mainland
        if sender is None:
            return Outcome("none", error="no_sender", permanent=True)
        return sender.send(message, text)

    def reports(self) -> list[Report]:
        """Delivery reports of the providers that keep them for us to pull (Tencent Cloud); none for the others."""
        return [r for s in (self.mainland, self.abroad) if s is not None and hasattr(s, "reports") for r in s.reports()]


def unreachable(provider: str) -> Outcome:
    return Outcome(provider, error="unavailable")
