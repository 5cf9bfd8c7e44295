"""Payments: their own records with states. The record and its transitions are the domain's
(chalicelib/domain/payment.py); re-exported here, where the store and the API look for models."""
from __future__ import annotations

from ..domain.payment import Payment, PaymentState

__all__ = ["Payment", "PaymentState"]
