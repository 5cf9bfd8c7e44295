"""Failures logged without their messages: a message may quote personal data (a pydantic error quotes the input,
a member's phone among it); the exception's type and the code's frames say where it broke."""
from __future__ import annotations

import traceback


def where(exc: BaseException) -> str:
    """"ValueError" and the stack as file:line and the code line, never str(exc) (nor a chained one's)."""
    frames = traceback.extract_tb(exc.__traceback__)
    return type(exc).__name__ + ("\n" + "".join(traceback.format_list(frames)) if frames else "")
