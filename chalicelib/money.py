"""Money is an integer in the currency's minor unit (design.md); this turns it into the unit people read."""
from __future__ import annotations

from .models import CURRENCY_EXPONENT


def money(amount: int, currency: str):
    """Minor units → the currency's unit: 2000 JPY is 2000, 2000 CNY is 20.0."""
    exponent = CURRENCY_EXPONENT.get(currency.upper(), 2)
    return amount if exponent == 0 else round(amount / 10 ** exponent, exponent)
