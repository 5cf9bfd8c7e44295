"""The outbox's worker and the one function per cause that queues its messages.

`queue_<cause>(deps, …)` builds the cause's messages (one per channel the participant has) and writes each once
(store/messages.py: keyed by cause and channel). `deliver_due(deps, now)` sends what is due: run by a thread
locally (scripts/dev.py) and by a scheduled function on AWS. Log lines name a message by its id, kind and state
only — never its address, its text or a code."""
from __future__ import annotations

import json
import logging
import os
import secrets
import threading
from datetime import datetime, timedelta

from ..ids import new_id
from . import record
from .record import Message
from .setup import messaging
from .templates import language, render

log = logging.getLogger("cardgames.messages")
LEASE = timedelta(minutes=2)     # a try's provider call is bounded by the adapters' 5-s timeouts
_file_lock = threading.Lock()


def queue(deps, message: Message) -> bool:
    written = deps.repos.messages.queue(message)
    log.info("message %s %s: %s", message.id if written else "-", message.kind,
             "queued" if written else "already queued for this cause")
    return written


def deliver_due(deps, now: datetime | None = None, limit: int = 50) -> dict:
    """One pass over the due messages: each claimed, tried once, settled. Returns the counts by outcome."""
    now = now or deps.clock()
    senders = messaging(deps)
    worker = secrets.token_hex(8)
    counts = {"sent": 0, "retry": 0, "failed": 0, "skipped": 0}
    for message, seen in deps.repos.messages.due(now, limit):
        trying = record.tried(message, now)
        if not deps.repos.messages.claim(trying, seen, worker, now + LEASE):
            counts["skipped"] += 1     # another worker has it
            continue
        text = render(trying.kind, trying.lang, trying.params)
        sender = senders.senders.get(trying.channel)
        outcome = sender.send(trying, text) if sender else None
        if outcome is not None and outcome.ok:
            done = record.sent(trying, now, outcome.provider, outcome.provider_id)
            _append_local(senders.outbox_file, trying, text, now)
        else:
            error, permanent = (outcome.error, outcome.permanent) if outcome else ("no_sender", False)
            done = record.failed_try(trying, now, error, permanent=permanent)
        if deps.repos.messages.settle(done, worker):
            key = "sent" if done.state == "sent" else "failed" if done.state == "failed" else "retry"
            counts[key] += 1
            log.info("message %s %s: %s after try %d%s", done.id, done.kind, done.state, done.tries,
                     f" ({done.error})" if done.error else "")
    return counts


def _append_local(path: str | None, message: Message, text: str, now: datetime) -> None:
    """Locally every message sent is also a line of `.data/outbox.jsonl` (api.md v1.3), so an organiser
    rehearsing the day reads what players would get."""
    if not path:
        return
    line = json.dumps({"channel": message.channel, "to": message.to, "template": message.kind, "text": text,
                       "at": now.isoformat(), "tournament_id": message.tournament_id}, ensure_ascii=False)
    with _file_lock, open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")
    os.chmod(path, 0o600)   # phones and links: this user's alone, like the rest of .data/


# --------------------------------------------------------------------------- the causes
def _contacts(entry) -> list[tuple[str, str]]:
    """(channel, address) of an entry: each member's phone once (SMS), its e-mail if it has one."""
    seen, out = set(), []
    for member in entry.members:
        for channel, address in (("sms", getattr(member, "phone", None)), ("email", getattr(member, "email", None))):
            if address and address not in seen:
                seen.add(address)
                out.append((channel, address))
    return out


def queue_registration(deps, answer, event, lang: str | None = None) -> int:
    """Registration received: the manage link to each member's phone (and e-mail), once per entry whatever
    retries the request had (a retried registration answers the same entry, and its messages' keys are the
    entry's). `answer`: the registration's answer (its entry and manage token); `event`: its event."""
    from ..services.links import site_url
    entry = answer.entry
    link = f"{site_url()}/entry.html?id={entry.id}#token={answer.manage_token}"
    now = deps.clock()
    written = 0
    for channel, address in _contacts(entry):
        message = record.new(id=new_id(), cause=f"registration:{entry.id}:{address_tag(address)}",
                             kind="registration_received", channel=channel, to=address, now=now,
                             lang=language(lang), params={"event": event.config.name, "link": link},
                             secret_params=("link",), tournament_id=entry.tournament_id)
        written += queue(deps, message)
    return written


def address_tag(address: str) -> str:
    """Which member of a cause a message is for, in its key without the address itself (a keyed hash)."""
    from ..installation import lookup_hash
    return lookup_hash("message-to", address)[:16]
