"""Points that are divided (carry-over, early-finish averages, shared places) round half-up to two
decimals: seed 000 "按四舍五入标准计算（保留2位小数）" (rules.md §8) — 17.125 → 17.13, never Python's
half-even `round()` nor a float's binary neighbour."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from collections.abc import Iterable

CENT = Decimal("0.01")


def _dec(value) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


def half_up(value, places: int = 2) -> float:
    """四舍五入 to `places` decimals, from the decimal text of the value (17.125 → 17.13, 2.675 → 2.68)."""
    return float(_dec(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def share(values: Iterable, count: int, places: int = 2) -> float:
    """The sum of `values` divided by `count`, summed and divided in decimals, then rounded half-up."""
    total = sum((_dec(v) for v in values), Decimal(0))
    return half_up(total / Decimal(count), places)
