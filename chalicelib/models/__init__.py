"""Pydantic models shared by the api, the services and the store, one module per resource.

Inputs (…In / …Patch) are strict about unknown fields so typos are reported, not ignored.
The event configuration carries every option with the defaults of rules.md.
"""
from .base import *  # noqa: F401,F403
from .tournaments import *  # noqa: F401,F403
from .events import *  # noqa: F401,F403
from .organisers import *  # noqa: F401,F403
from .public import *  # noqa: F401,F403
from .entries import *  # noqa: F401,F403
from .registrations import *  # noqa: F401,F403
from .payments import *  # noqa: F401,F403
from .rounds import *  # noqa: F401,F403
from .hall import *  # noqa: F401,F403
from .rankings import *  # noqa: F401,F403
