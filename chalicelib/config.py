"""Settings read once from the environment.

A dataclass read by hand, not pydantic-settings: that library's import (asyncio, importlib.metadata, its CLI
parser) cost about 45 ms of every cold start (bench/import_app.py) for reading some thirty strings and integers."""
from __future__ import annotations

import dataclasses
import os
from functools import lru_cache


@dataclasses.dataclass
class Settings:
    """Each field from the environment variable of its name, in any case (STAGE or stage); integers are the
    fields whose default is one."""
    stage: str = "local"
    table_name: str = "cardgames"
    # boto3 reads AWS_ENDPOINT_URL_DYNAMODB itself; kept here so the local stack can print it.
    aws_endpoint_url_dynamodb: str | None = None
    aws_default_region: str = "ap-east-1"
    api_url: str = "http://127.0.0.1:8000"
    site_url: str = "http://127.0.0.1:8080"
    public_url: str | None = None  # the site as phones reach it (venue mode: the laptop's LAN address); wins over site_url
    # Where published pages go: a local folder (local stage) or an S3 bucket (AWS).
    publish_dir: str | None = None
    publish_bucket: str | None = None
    stripe_secret_key: str | None = None
    stripe_webhook_secret: str | None = None
    stripe_secret_arn: str | None = None
    # Where the stripe library sends its requests when not api.stripe.com: stripe-mock or a local stand-in
    stripe_api_base: str | None = None
    # v1.2 China's providers: a JSON object of the merchant's values (docs/payments.md), from the environment or
    # Secrets Manager (…_secret_arn); locally also .data/wechat_pay.json and .data/alipay.json.
    wechat_pay_config: str | None = None
    wechat_pay_secret_arn: str | None = None
    alipay_config: str | None = None
    alipay_secret_arn: str | None = None
    # Organisers' own merchant accounts (issue 40, docs/payments.md): "single" — one chamber's installation, whose
    # own keys (above) take a tournament's money unless its organiser connected an account of that provider (the
    # v1.2 behaviour); "platform" — a tournament offers an online provider only through its organiser's account in
    # state ok (the keys above are the service provider's). The accounts' secrets are sealed with a data key from
    # this KMS key (AWS), else one derived from the installation's secret (store/sealed.py).
    payment_accounts: str = "single"
    payment_accounts_key_id: str | None = None
    table_code_secret: str | None = None  # derives printable table codes; set per deployment
    table_code_secret_arn: str | None = None  # AWS: the same, read from Secrets Manager once per cold start
    lookup_secret: str | None = None  # keys login names and rate keys; derived from the table-code secret when unset
    publish_queue_url: str | None = None  # AWS: publishing runs from this queue; locally inline
    messages_queue_url: str | None = None  # AWS: nudges the outbox's worker for an urgent job (messages/nudge.py)
    # Published standings and round pages longer than this many rows are split into pages (issue 29); find.html
    # carries its hits inline up to publish_find_inline of them, else searches index shards (publish/find_index.py).
    publish_page_rows: int = 250
    publish_find_inline: int = 2000
    # Above this many entries, a result in the open round leaves the standings as the last close left them
    # (they move when the round closes): the standings of 10,000 entries take seconds to work out.
    publish_live_standings_max: int = 2000
    hold_minutes: int = 35  # Stripe sessions live at least 30 minutes
    max_body_bytes: int = 64 * 1024
    trusted_proxy_hops: int = 0   # proxies of ours in front of the API that append X-Forwarded-For (0: none)

    @classmethod
    def from_environ(cls, environ: dict[str, str] | None = None) -> Settings:
        given = {k.lower(): v for k, v in (os.environ if environ is None else environ).items()}
        values = {}
        for field in dataclasses.fields(cls):
            if field.name not in given:
                continue
            value = given[field.name]
            if isinstance(field.default, int):
                try:
                    value = int(value)
                except ValueError:
                    raise ValueError(f"the environment variable {field.name.upper()} must be an integer, not {value!r}") from None
            values[field.name] = value
        return cls(**values)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings.from_environ()


@lru_cache(maxsize=8)
def secret_string(arn: str) -> str:
    """A Secrets Manager value, fetched once per cold start."""
    import boto3
    return boto3.client("secretsmanager").get_secret_value(SecretId=arn)["SecretString"]
