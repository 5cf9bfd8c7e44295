"""E-mail by SMTP: the local stage's sender (a local server, aiosmtpd, started by make run); any SMTP relay
otherwise."""
from __future__ import annotations

import smtplib
from email.message import EmailMessage

from .aws import subject
from .port import Outcome
from .record import Message


class SmtpEmail:
    name = "smtp"

    def __init__(self, config: dict):
        self.config = config

    def send(self, message: Message, text: str) -> Outcome:
        mail = EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = self.config["from"], message.to, subject(message)
        mail["Message-ID"] = f"<{message.id}@{self.config['from'].partition('@')[2] or 'localhost'}>"
        mail.set_content(text)
        try:
            with smtplib.SMTP(self.config.get("host", "127.0.0.1"), int(self.config.get("port", 25)),
                              timeout=float(self.config.get("timeout_s", 5))) as server:
                server.send_message(mail)
        except smtplib.SMTPRecipientsRefused:
            return Outcome(self.name, error="refused", permanent=True)
        except (OSError, smtplib.SMTPException):
            return Outcome(self.name, error="unavailable")
        return Outcome(self.name, provider_id=mail["Message-ID"])
