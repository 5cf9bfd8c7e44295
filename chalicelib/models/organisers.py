"""Organiser accounts."""
from __future__ import annotations

from datetime import datetime

from pydantic import Field

from .base import Loose, Strict


class Organiser(Loose):
    id: str
    name: str
    created_at: datetime
    revoked: bool = False
    acting_as: str | None = Field(default=None, exclude=True, description="set per request: a staff member acting")


class OrganiserIn(Strict):
    name: str = Field(min_length=1, max_length=200)
