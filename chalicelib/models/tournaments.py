"""Tournaments: what an organiser creates first."""
from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ..domain.contacts import RETENTION_DEFAULT_DAYS, RETENTION_MAX_DAYS, RETENTION_MIN_DAYS
from .base import CURRENCY_EXPONENT, Loose, Strict

RETENTION_DAYS_DESCRIPTION = ("days after the tournament ends that participants' contact data (phones, e-mails, "
                              "WeChat openids) is kept; then erased, names and results stay (issue 41)")


def _check_timezone(value: str) -> str:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {value!r} (use an IANA name such as Asia/Shanghai)") from None
    return value


def _check_currency(value: str) -> str:
    value = value.upper()
    if value not in CURRENCY_EXPONENT:
        raise ValueError(f"unsupported currency {value!r}; one of {sorted(CURRENCY_EXPONENT)}")
    return value


ProviderName = Literal["wechat_pay", "alipay", "stripe", "offline", "demo"]   # demo: the local stage's only


class PaymentSettings(Strict):
    """How participants may pay for this tournament (api.md v1.2): online providers the platform has keys for,
    and "offline" (cash or transfer at the desk). The default keeps what tournaments had before v1.2."""
    providers: list[ProviderName] = Field(default_factory=lambda: ["stripe", "offline"], min_length=1, max_length=5)

    @field_validator("providers")
    @classmethod
    def _once(cls, v):
        if len(set(v)) != len(v):
            raise ValueError("a provider is named twice")
        return v


class TournamentIn(Strict):
    name: str = Field(min_length=1, max_length=200)
    venue: str = Field(default="", max_length=300)
    timezone: str = Field(default="Asia/Shanghai", min_length=1, max_length=64, description="an IANA time zone")
    currency: str = Field(default="CNY", pattern=r"^[A-Za-z]{3}$", description="ISO 4217")
    starts_on: date
    ends_on: date | None = None
    payments: PaymentSettings = Field(default_factory=PaymentSettings)
    retention_days: int = Field(default=RETENTION_DEFAULT_DAYS, ge=RETENTION_MIN_DAYS, le=RETENTION_MAX_DAYS,
                                description=RETENTION_DAYS_DESCRIPTION)

    _tz = field_validator("timezone")(_check_timezone)
    _cur = field_validator("currency")(_check_currency)

    @model_validator(mode="after")
    def _dates(self):
        if self.ends_on is None:
            self.ends_on = self.starts_on
        if self.ends_on < self.starts_on:
            raise ValueError("ends_on is before starts_on")
        return self


class TournamentPatch(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    venue: str | None = Field(default=None, max_length=300)
    timezone: str | None = Field(default=None, min_length=1, max_length=64)
    currency: str | None = Field(default=None, pattern=r"^[A-Za-z]{3}$")
    starts_on: date | None = None
    ends_on: date | None = None
    payments: PaymentSettings | None = None
    retention_days: int | None = Field(default=None, ge=RETENTION_MIN_DAYS, le=RETENTION_MAX_DAYS,
                                       description=RETENTION_DAYS_DESCRIPTION)

    @field_validator("timezone")
    @classmethod
    def _tz(cls, v):
        return None if v is None else _check_timezone(v)

    @field_validator("currency")
    @classmethod
    def _cur(cls, v):
        return None if v is None else _check_currency(v)


class Tournament(Loose):
    id: str
    organiser_id: str
    name: str
    venue: str = ""
    timezone: str
    currency: str
    starts_on: date
    ends_on: date
    payments: PaymentSettings = Field(default_factory=PaymentSettings)
    retention_days: int = RETENTION_DEFAULT_DAYS
    contacts_erased_at: datetime | None = None   # the retention sweep erased its contact data (services/retention.py)
    created_at: datetime
    version: int = 1
