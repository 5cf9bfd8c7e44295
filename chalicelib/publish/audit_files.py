"""The audit chains as published (docs/audit-chain.md): what the publisher holds of an event's chains, what
audit.json and its segment files say. An event chained before lanes keeps its one chain's files (format 1:
site_pages.write_chain); an event of lanes (format 2) publishes every lane's chain in one audit.json, each lane's
full segments in files of their own that never change again."""
from __future__ import annotations

import json

from .. import auditchain
from ..auditchain import FORMAT_LANES, LANES, event_head, genesis, lane_genesis


def whole(chain: dict, items: list[dict], heads: dict[int, tuple[int, str]]) -> bool:
    """Whether the entries held (`chain`: {(lane, seq): text}) and the items just read make every lane's chain from
    1 to at least the head read before them."""
    seqs: dict[int, set[int]] = {}
    for lane, seq in chain:
        seqs.setdefault(lane, set()).add(seq)
    for i in items:
        if i.get("seq") is not None:
            seqs.setdefault(int(i.get("lane") or 0), set()).add(int(i["seq"]))
    for lane, (count, _) in heads.items():
        have = seqs.get(lane, set())
        top = max(have, default=0)
        if top < count or len(have) != top:
            return False
    return True


def view(eid: str, fmt: int, chain: dict, old: dict | None) -> dict:
    """The event's chains as published: each lane's entries (JSON text) from record 1 to its first gap (none in a
    whole store), with the event's count and head (the corrections page's footer); `old` when nothing grew."""
    lanes = [0] if fmt == 1 else list(range(LANES))
    counts = []
    for lane in lanes:
        n = 0
        while (lane, n + 1) in chain:
            n += 1
        counts.append(n)
    if old is not None and old.get("format") == fmt and old.get("counts") == counts:
        return old
    chains = []
    for lane, n in zip(lanes, counts):
        entries = [chain[(lane, seq)] for seq in range(1, n + 1)]
        start = genesis(eid) if fmt == 1 else lane_genesis(eid, lane)
        chains.append({"lane": lane, "count": n, "head": json.loads(entries[-1])["hash"] if entries else start,
                       "genesis": start, "entries": entries})
    if fmt == 1:   # site_pages.write_chain's shape
        return {"format": 1, "counts": counts, "count": counts[0], "head": chains[0]["head"],
                "entries": chains[0]["entries"]}
    return {"format": 2, "counts": counts, "count": sum(counts),
            "head": event_head(eid, [(c["count"], c["head"]) for c in chains]), "chains": chains}


def _with_records(head: dict, records: list[str]) -> str:
    """`head` as JSON with its records spliced in as stored (JSON text), not decoded and encoded again."""
    return json.dumps(head, ensure_ascii=False, separators=(",", ":"))[:-1] + ',"records":[' + ",".join(records) + "]}"


def write_lanes(out, tid: str, eid: str, ep: str, chain: dict) -> None:
    """audit.json of an event of lanes: {format, hash, tournament_id, event_id, lanes, count, head, chains: [{lane,
    genesis, count, head, segments, records} …]} and each lane's full segments audit-<lane>-<k>.json of SEGMENT
    records (a full segment never changes again, so it is not even rendered again)."""
    if out.unchanged(ep + "audit.json", f"{chain['count']}:{chain['head']}"):
        return
    chains = []
    for c in chain["chains"]:
        lane, entries = c["lane"], c["entries"]
        segment = auditchain.SEGMENT   # read when used: a test makes it small
        full = len(entries) // segment
        segments = []
        for k in range(full):
            part = entries[k * segment:(k + 1) * segment]
            name, last_hash = f"audit-{lane}-{k + 1}.json", json.loads(part[-1])["hash"]
            if not out.unchanged(ep + name, last_hash):
                out.write(ep + name, _with_records({"format": FORMAT_LANES, "event_id": eid, "lane": lane,
                                                    "first": k * segment + 1}, part))
            segments.append({"href": name, "first": k * segment + 1, "last": (k + 1) * segment,
                             "last_hash": last_hash})
        chains.append(_with_records({"lane": lane, "genesis": c["genesis"], "count": c["count"], "head": c["head"],
                                     "segments": segments}, entries[full * segment:]))
    top = json.dumps({"format": FORMAT_LANES, "hash": "sha256", "tournament_id": tid, "event_id": eid,
                      "lanes": len(chains), "count": chain["count"], "head": chain["head"]},
                     ensure_ascii=False, separators=(",", ":"))
    out.write(ep + "audit.json", top[:-1] + ',"chains":[' + ",".join(chains) + "]}")
