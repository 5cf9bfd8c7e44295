"""What every model shares: the base classes (inputs strict, stored data loose, answers), games, formats,
currencies."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Game = Literal["guandan", "doudizhu", "gouji", "tractor"]
FormatName = Literal["swiss", "round_robin", "knockout", "special_swiss"]

# ISO 4217 codes we accept, with their minor-unit exponent (all used here have 2 or 0).
CURRENCY_EXPONENT = {"CNY": 2, "HKD": 2, "TWD": 2, "MOP": 2, "SGD": 2, "MYR": 2, "USD": 2,
                     "EUR": 2, "GBP": 2, "AUD": 2, "CAD": 2, "NZD": 2, "JPY": 0, "KRW": 0}


# defer_build: validators are built on first use, not at import (keeps the Lambda cold start short).
class Strict(BaseModel):
    """Inputs. Request bodies are validated from JSON in strict mode, with `null` read as "not given"
    (api.md v1.1; api/routing.parse_body)."""
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, defer_build=True)


class Loose(BaseModel):
    """Stored/output models: tolerate fields added by later versions."""
    model_config = ConfigDict(extra="ignore", defer_build=True)


class Out(BaseModel):
    """Answers of the API."""
    model_config = ConfigDict(defer_build=True)
