"""A table's live JSON (issue 43): what the table phone shows, as a small static file beside the published pages,
so that phones poll the CDN instead of the API. Pure: the view and the secret come in, the key and the bytes go out.

The name is an HMAC of (event, round, table) under the installation's secret, like a table code: only a phone
that opened the table with its code learns it (the API's table answer carries it), and nobody can list or guess
the others. The body carries nothing secret either: no table code, no phone number, no side (which phone asks
is the phone's own business: it keeps its side from the API's answer)."""
from __future__ import annotations

import hashlib
import hmac
import json

PREFIX = "live/"

# Short at the CDN (a change reaches the other phone within a poll or two), stale-while-revalidate so an expired
# copy still answers at once while the edge fetches the new one, stale-if-error so a phone keeps its table while
# the origin is unreachable. The browser revalidates every poll (the page fetches with cache "no-cache").
CACHE_CONTROL = "public, max-age=2, stale-while-revalidate=30, stale-if-error=600"

NAME_HEX = 32   # 128 bits: not guessable, not enumerable

# Never in the file: who asks (a side), the organiser's codes (RoundTable.codes is organiser-only), hashes.
_VIEW_DROPPED = frozenset({"side", "live"})
_TABLE_DROPPED = frozenset({"codes", "code_hashes"})


def live_name(secret: bytes, event_id: str, round_no: int, table_no: int) -> str:
    return hmac.new(secret, f"live:{event_id}:{int(round_no)}:{int(table_no)}".encode(), hashlib.sha256).hexdigest()[:NAME_HEX]


def live_key(secret: bytes, event_id: str, round_no: int, table_no: int) -> str:
    """The object's key in the published site (S3 key, or path under the local site folder)."""
    return f"{PREFIX}{event_id}/{live_name(secret, event_id, round_no, table_no)}.json"


def live_body(view: dict) -> bytes:
    """The table phone's view (api/rounds.TableView as JSON) without what is the asker's own or secret. Stable
    bytes for the same table (sorted keys, no timestamp): an unchanged table writes the same file."""
    out = {k: v for k, v in view.items() if k not in _VIEW_DROPPED}
    table = out.get("table")
    if isinstance(table, dict):
        out["table"] = {k: v for k, v in table.items() if k not in _TABLE_DROPPED}
    return json.dumps(out, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8")
