"""Sign-in by phone and SMS code (api.md v1.3 "Players")."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from .base import Out, Strict


class CodeIn(Strict):
    phone: str = Field(min_length=1, max_length=30)
    lang: Literal["zh-CN", "en", "vi"] | None = Field(default=None, description="the SMS's language (default zh-CN)")


class CodeSent(Out):
    retry_after: int = Field(description="seconds before another code may be asked for this phone")


class PlayerSignInIn(Strict):
    phone: str = Field(min_length=1, max_length=30)
    code: str = Field(pattern=r"^\s*\d{6}\s*$")


class PlayerOut(Out):
    id: str
    phone_masked: str


class PlayerSession(Out):
    token: str = Field(description="send it as X-Player-Token")
    expires_at: datetime
    player: PlayerOut
