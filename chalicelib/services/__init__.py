"""The services. Importing the package registers what follows from the domain's events (reactions.py) on the
message bus, before any service can dispatch one."""
from . import reactions  # noqa: F401
