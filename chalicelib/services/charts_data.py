"""What the published pages' charts show (issue 28): each entry's place after every closed round of the stage
being played, from the standings as they stood then. Closed rounds rarely change, so each prefix of them is
worked out once per process and kept by a digest of its results — and, given `saved` (the publisher's own state,
kept beside its pages: issue 29), once at all, so a new publisher process (a cold Lambda) does not work out the
standings once per closed round again."""
from __future__ import annotations

from typing import TYPE_CHECKING

import hashlib

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps


def places_by_round(deps: Deps, event, state: dict, all_rounds: list, saved: dict | None = None,
                    keep: dict | None = None, memo: dict | None = None) -> dict:
    """{"rounds": [n, …], "field": entries ranked, "by_entry": {entry_id: [place after each of those rounds]}}.
    `saved`: {digest of the closed rounds up to one: {entry_id: place}} worked out before; `keep` gets what
    this call used, by the same digests (the caller stores it for the next process). `memo`: the places worked out
    before in this process (the publisher's cache, publish/cache.py), by the same digests."""
    memo = {} if memo is None else memo
    from .standings import stage_standings
    stage = state.get("stage", 0)
    closed = [(doc, tables) for doc, tables in all_rounds if doc.get("stage") == stage and doc.get("status") == "closed"]
    if not closed or not state.get("plans", {}).get(str(stage)):
        return {"rounds": [], "field": 0, "by_entry": {}}
    h = hashlib.sha1(event.id.encode())
    keys = []
    for doc, tables in closed:
        h.update(repr((doc["number"], [(t["number"], t["status"], t.get("points")) for t in tables],
                       doc.get("byes"))).encode())
        keys.append(((event.id, doc["number"], h.hexdigest()), h.hexdigest()))
    if len(memo) + len(keys) > 5000:
        memo.clear()
    wanted = [k for k, (key, digest) in enumerate(keys) if key not in memo and not (saved is not None and digest in saved)]
    made = _each_prefix(deps, event, stage, state, closed, wanted)
    by_round: list[dict[str, int]] = []
    for k, (key, digest) in enumerate(keys):
        if key not in memo:
            if saved is not None and digest in saved:
                memo[key] = saved[digest]
            else:
                upto = [r for r in closed if r[0]["number"] <= key[1]]
                # the records and tables of this prefix: a slice of those made once (no copy of their items)
                cut = None if made is None else (made[0][:made[2][k][0]], made[1][:made[2][k][1]])
                # only the places after every closed round can be the standings asked for next (after a close):
                # an earlier prefix's full standings are not kept for that (issue 43: ~100 MB at 100,000 entries)
                rows = stage_standings(deps, event, stage, state, upto, share=len(upto) == len(closed), made=cut)["rows"]
                memo[key] = {r["entry_id"]: r["rank"] for r in rows}
        if keep is not None:
            keep[digest] = memo[key]
        by_round.append(memo[key])
    entries = set().union(*by_round)
    return {"rounds": [doc["number"] for doc, _ in closed], "field": max((len(r) for r in by_round), default=0),
            "by_entry": {e: [r.get(e) for r in by_round] for e in sorted(entries)}}


def _each_prefix(deps: Deps, event, stage: int, state: dict, closed: list, wanted: list[int]) -> tuple | None:
    """The stage's records and tables of the closed rounds up to the last prefix wanted, made once, with where each
    round's end in them (issue 43: the standings after each prefix made every table's record and copy again for
    each prefix): a prefix's records are a prefix of these when the rounds are in the order of their numbers.
    None when nothing is wanted or they are not in that order (each prefix is then made as before)."""
    from .standings import stage_records
    numbers = [doc["number"] for doc, _ in closed]
    if not wanted or numbers != sorted(set(numbers)):
        return None
    cuts: list = []
    records, tables = stage_records(deps, event, stage, state, closed[:wanted[-1] + 1], cuts)
    return records, tables, cuts
