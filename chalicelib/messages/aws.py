"""Amazon's senders: SMS by SNS for numbers outside the mainland (China's carriers take only the approved
templates of a Chinese provider), e-mail by SES. boto3 is imported lazily (the Lambda runtime has it); its own
AWS_ENDPOINT_URL_SNS / _SESV2 settings point it at a local stand-in."""
from __future__ import annotations

from .port import Outcome
from .record import Message
from .templates import render

_PERMANENT = ("InvalidParameter", "AuthorizationError", "OptedOut", "MessageRejected", "NotFoundException",
              "BadRequestException", "AccountSuspendedException", "MailFromDomainNotVerifiedException")


def _outcome(provider: str, exc) -> Outcome:
    code = getattr(exc, "response", {}).get("Error", {}).get("Code", "") if hasattr(exc, "response") else ""
    if code.startswith(_PERMANENT):
        return Outcome(provider, error="refused", permanent=True)
    return Outcome(provider, error="rate_limited" if "Throttl" in code or "TooMany" in code else "unavailable")


class SnsSms:
    name = "sns"

    def __init__(self, config: dict):
        self.config = config

    def send(self, message: Message, text: str) -> Outcome:
        import boto3
        from botocore.exceptions import BotoCoreError, ClientError
        try:
            answer = boto3.client("sns", region_name=self.config.get("region")).publish(
                PhoneNumber=message.to, Message=text,
                MessageAttributes={"AWS.SNS.SMS.SMSType": {"DataType": "String", "StringValue": "Transactional"}})
        except ClientError as exc:
            return _outcome(self.name, exc)
        except BotoCoreError:
            return Outcome(self.name, error="unavailable")
        return Outcome(self.name, provider_id=answer.get("MessageId"))


class SesEmail:
    name = "ses"

    def __init__(self, config: dict):
        self.config = config

    def send(self, message: Message, text: str) -> Outcome:
        import boto3
        from botocore.exceptions import BotoCoreError, ClientError
        try:
            answer = boto3.client("sesv2", region_name=self.config.get("region")).send_email(
                FromEmailAddress=self.config["from"], Destination={"ToAddresses": [message.to]},
                Content={"Simple": {"Subject": {"Data": subject(message), "Charset": "UTF-8"},
                                    "Body": {"Text": {"Data": text, "Charset": "UTF-8"}}}})
        except ClientError as exc:
            return _outcome(self.name, exc)
        except BotoCoreError:
            return Outcome(self.name, error="unavailable")
        return Outcome(self.name, provider_id=answer.get("MessageId"))


def subject(message: Message) -> str:
    """The first clause of the text: the event and what happened."""
    text = render(message.kind, message.lang, message.params)
    return text.split("：")[0].split(":")[0][:80]
