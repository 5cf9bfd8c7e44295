"""Organiser accounts."""
from __future__ import annotations

import re  # noqa: F401
from datetime import date, datetime, timezone  # noqa: F401
from typing import Annotated, Any, Literal, Union  # noqa: F401

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator  # noqa: F401

from .base import *  # noqa: F401,F403
from .tournaments import *  # noqa: F401,F403
from .events import *  # noqa: F401,F403


class Organiser(Loose):
    id: str
    name: str
    created_at: datetime
    revoked: bool = False
    acting_as: str | None = Field(default=None, exclude=True, description="set per request: a staff member acting")


class OrganiserIn(Strict):
    name: str = Field(min_length=1, max_length=200)
