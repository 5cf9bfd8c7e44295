"""The publisher's manifest: each published page's content digest (and the digest of its inputs), per language and
tournament, kept beside the pages so a publish writes only the pages whose bytes changed. Kept in parts
(`.manifest/<part>.json`) under an index, so one result rewrites a few parts, not 60,000 lines."""
from __future__ import annotations

import hashlib
import json
ENTRY_SHARDS = 16   # an event's entry pages' part of the manifest, in this many files


def shard(key: str) -> str:
    """Which part of the manifest a page's line is kept in: the tournament's own pages ("t"), an event's pages
    (its id), or, for the entry pages that are most of them, one of ENTRY_SHARDS parts of the event's. Not
    cached: at 100,000 entries a publish asks for ~310,000 keys in turn, more than a bounded cache holds (each
    pass evicted what the next needed: slower than none, measured) and ~35 MiB held in the publisher for nothing."""
    rest = key.split("/t/", 1)[-1] if "/t/" in key else key[2:] if key.startswith("t/") else key
    parts = rest.split("/")
    if len(parts) < 3:
        return "t"
    eid, name = parts[1], parts[-1]
    if name.startswith("entry-"):
        return f"{eid}-e{int(hashlib.sha1(name.encode()).hexdigest()[:4], 16) % ENTRY_SHARDS}"
    return eid


def save_manifest(sink, key: str, manifest: dict, before: dict) -> None:
    """The manifest as its parts (`.manifest/<part>.json`) and an index naming them: a publish writes only the
    parts whose lines changed (after one result: the event's part and two entry parts, not 30,000 lines). The
    index is written last, once its parts are out. Each part is held as its keys and its digest, its lines made
    again from the manifest's own when one of them changes (issue 43: not a second copy of every line, ~10 MiB a
    language at 100,000 entries)."""
    old = before.get("_shards") or {}
    touched = manifest.pop("_touched", None)
    if old and "pages" in before and "inputs" in before:
        members, moved = _shards_again(manifest, before, old, touched)
    else:
        members, moved = {}, None
        for k in manifest["pages"].keys() | manifest["inputs"].keys():
            members.setdefault(shard(k), []).append(k)
    folder = key[: -len(".manifest.json")] + ".manifest/"
    index, kept = {}, {}
    for name, keys_ in members.items():
        if moved is not None and name not in moved:   # none of its lines changed: as it was
            index[name] = old[name]["digest"]
            kept[name] = old[name]
            continue
        body = {f: {k: manifest[f][k] for k in keys_ if k in manifest[f]} for f in ("pages", "inputs")}
        if not (body["pages"] or body["inputs"]):
            continue
        raw = json.dumps(body, sort_keys=True).encode()
        index[name] = hashlib.sha1(raw).hexdigest()[:16]
        if name not in old or old[name]["digest"] != index[name]:
            sink.write(f"{folder}{name}.json", raw)
        kept[name] = {"keys": tuple(k for k in keys_ if k in body["pages"] or k in body["inputs"]),
                      "digest": index[name]}
    if index != before.get("_index"):
        sink.write(key, json.dumps({"shards": index}, sort_keys=True).encode())
    manifest["_shards"], manifest["_index"] = kept, index


def _shards_again(manifest: dict, before: dict, old: dict, touched: set | None = None) -> tuple[dict, set]:
    """(each part's keys, the parts holding a line that changed): only those are made again (one result: 3 of 50,
    not 60,000 lines). `touched`: the keys whose lines may have changed (the writer's own count,
    publish/site_pages.PageOut), else every line is compared with the last manifest's."""
    if touched is None:
        touched = set()
        for field in ("pages", "inputs"):
            now, was = manifest[field], before[field]
            touched.update(k for k, _ in now.items() - was.items())
            touched.update(was.keys() - now.keys())
    by_shard: dict[str, set] = {}
    for k in touched:
        by_shard.setdefault(shard(k), set()).add(k)
    members: dict = {name: part["keys"] for name, part in old.items()}
    for name, keys_ in by_shard.items():
        members[name] = set(members.get(name, ())) | keys_
    return members, set(by_shard)


def load_manifest(sink, key: str) -> dict:
    """The manifest as the last publisher left it: an index and its parts (or, written before parts, one file)."""
    try:
        raw = sink.read(key)
        data = json.loads(raw) if raw else {}
        if not isinstance(data, dict):
            return {}
        if "pages" in data:
            return data
        index = data.get("shards") or {}
        folder = key[: -len(".manifest.json")] + ".manifest/"
        out = {"pages": {}, "inputs": {}, "_shards": {}, "_index": index}
        for name, digest in index.items():
            part = sink.read(f"{folder}{name}.json")
            if part is None:   # a part missing: every page is checked again (written when it changed)
                return {}
            body = json.loads(part)
            out["pages"].update(body.get("pages", {}))
            out["inputs"].update(body.get("inputs", {}))
            out["_shards"][name] = {"keys": tuple(body.get("pages", {}).keys() | body.get("inputs", {}).keys()),
                                    "digest": digest}
        return out
    except (ValueError, AttributeError):
        return {}
