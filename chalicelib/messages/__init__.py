"""Messages to participants (design.md v1.3): the record (record.py), one sender port (port.py) with an adapter
per provider, the templates, and the outbox's worker (outbox.py)."""
