"""Checks the published audit chains of a tournament (docs/audit-chain.md): every record's hash, its link to the
one before, their numbering from 1, the count and head the publisher stated, and that each corrections page's
chain footer and record numbers lie on the chain — for an event of lanes (format 2), in every lane, and the
event's head made of the lanes' heads. Standard library only.

    python -m scripts.verify_log .data/site                       # every event of every tournament in a site folder
    python -m scripts.verify_log http://192.168.1.20:8080/t/<tid>/  # a tournament's events, over HTTP
    python -m scripts.verify_log …/t/<tid>/<eid>/audit.json --head <hash>   # one event, against a head noted elsewhere

Exit 0 with a summary line when every chain holds; 1 naming the first bad record (event and record number) when one
does not; 2 when nothing could be read."""
from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.error
import urllib.request
from functools import partial
from pathlib import Path

from chalicelib.auditchain import FORMAT, FORMAT_LANES, Broken, check, event_head, genesis, lane_genesis


class Unreadable(Exception):
    pass


class Source:
    """Files of a published site, by path relative to a base (a folder or a URL)."""

    def __init__(self, base: str):
        self.url = base.startswith(("http://", "https://"))
        self.base = base

    def read(self, rel: str) -> bytes | None:
        if self.url:
            url = self.base.rstrip("/") + "/" + rel if rel else self.base
            try:
                with urllib.request.urlopen(url, timeout=30) as resp:
                    return resp.read()
            except urllib.error.HTTPError as exc:
                if exc.code == 404:
                    return None
                raise Unreadable(f"{url}: HTTP {exc.code}") from None
            except (urllib.error.URLError, OSError) as exc:
                raise Unreadable(f"{url}: {exc}") from None
        path = Path(self.base) / rel if rel else Path(self.base)
        return path.read_bytes() if path.is_file() else None


def _json(src: Source, rel: str):
    body = src.read(rel)
    if body is None:
        return None
    try:
        return json.loads(body)
    except ValueError:
        raise Unreadable(f"{rel or src.base}: not JSON") from None


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def event_folders(target: str) -> tuple[Source, list[str]]:
    """(where to read, the event folders holding an audit.json) for a site folder, a tournament or event folder or
    URL, or an audit.json itself."""
    if target.startswith(("http://", "https://")):
        if target.endswith(".json"):
            return Source(target.rsplit("/", 1)[0]), [""]
        src = Source(target.rstrip("/"))
        feed = _json(src, "feed.json")
        if feed is None:   # an event's folder, or nothing
            return src, [""] if src.read("audit.json") is not None else []
        if "events" in feed:   # a tournament's feed lists its events
            return src, [e["id"] for e in feed["events"]]
        return src, [""]
    path = Path(target)
    if path.is_file():
        return Source(str(path.parent)), [""]
    if not path.is_dir():
        raise Unreadable(f"{target}: no such folder")
    found = sorted(p.parent.relative_to(path).as_posix() for p in path.rglob("audit.json"))
    return Source(str(path)), [("" if f == "." else f) for f in found]


def chain_of(src: Source, folder: str) -> tuple[dict, list[dict]]:
    """The event's stated chain (audit.json) and its entries in order, segments first (format 1)."""
    index = _index(src, folder)
    if index.get("format") != FORMAT:
        raise Unreadable(f"{_join(folder, 'audit.json')}: format {index.get('format')!r}, not {FORMAT}")
    return index, _entries(src, folder, index, index.get("event_id", ""))


def _index(src: Source, folder: str) -> dict:
    index = _json(src, _join(folder, "audit.json"))
    if index is None:
        raise Unreadable(f"{_join(folder, 'audit.json')}: missing")
    if index.get("format") not in (FORMAT, FORMAT_LANES):
        raise Unreadable(f"{_join(folder, 'audit.json')}: format {index.get('format')!r}, not {FORMAT} or {FORMAT_LANES}")
    return index


def _entries(src: Source, folder: str, chain: dict, eid: str, lane: int | None = None) -> list[dict]:
    """One chain's entries in order: its full segments' (each from where the one before ended), then its own."""
    entries: list[dict] = []
    name = r"audit-\d+\.json" if lane is None else rf"audit-{lane}-\d+\.json"
    for seg in chain.get("segments", []):
        href = str(seg.get("href", ""))
        if not re.fullmatch(name, href):
            raise Broken(len(entries) + 1, f"segment {href!r} is not a segment file's name", lane)
        part = _json(src, _join(folder, href))
        if part is None:
            raise Broken(len(entries) + 1, f"segment {href} is missing", lane)
        if part.get("event_id") != eid or part.get("first") != len(entries) + 1 or seg.get("first") != len(entries) + 1 \
                or part.get("lane") != lane:
            raise Broken(len(entries) + 1, f"segment {href} does not start where the one before ended", lane)
        entries.extend(part.get("records", []))
        if seg.get("last") != len(entries) or (entries and seg.get("last_hash") != entries[-1].get("hash")):
            raise Broken(min(len(entries), int(seg.get("last") or 0)) or 1, f"segment {href} does not end as audit.json says",
                         lane)
    entries.extend(chain.get("records", []))
    return entries


def lanes_of(src: Source, folder: str, index: dict) -> list[list[dict]]:
    """An event of lanes (format 2): each lane's entries, checked lane by lane against its stated count and head,
    and the event's count and head against the lanes'. Raises Broken naming the lane and record."""
    eid, chains = index.get("event_id", ""), index.get("chains", [])
    if not chains or index.get("lanes") != len(chains) or [c.get("lane") for c in chains] != list(range(len(chains))):
        raise Broken(1, f"audit.json states {index.get('lanes')!r} lanes but holds lanes "
                        f"{[c.get('lane') for c in chains]}")
    out, heads = [], []
    for lane, c in enumerate(chains):
        if c.get("genesis") != lane_genesis(eid, lane):
            raise Broken(1, "its genesis is not this event's lane's", lane)
        entries = _entries(src, folder, c, eid, lane)
        heads.append((len(entries), check(eid, entries, count=c.get("count"), head=c.get("head"), lane=lane)))
        out.append(entries)
    if sum(n for n, _ in heads) != index.get("count"):
        raise Broken(1, f"the lanes hold {sum(n for n, _ in heads)} records but {index.get('count')} are published")
    if event_head(eid, heads) != index.get("head"):
        raise Broken(1, "the event's head is not the lanes' heads together")
    return out


_FOOTER = re.compile(r'class="chain" data-event="([^"]*)" data-count="(\d+)" data-head="([0-9a-f]*)"'
                     r'(?: data-counts="([\d,]*)")?')
_ROW = re.compile(r'data-seq="(\d+)"')
_LANE_ROW = re.compile(r'data-seq="(\d+)-(\d+)"')


def check_page(html: str, eid: str, entries: list[dict], where: str) -> None:
    """A corrections page shows a chain it lies on: its count and head those of a record of this chain (a page
    published a moment before the JSON shows an earlier head), and every record number it shows within it."""
    m = _FOOTER.search(html)
    if not m:
        raise Broken(1, f"{where}: no audit chain on the corrections page")
    page_eid, count, head = m.group(1), int(m.group(2)), m.group(3)
    if page_eid != eid:
        raise Broken(1, f"{where}: the page's chain is of event {page_eid}")
    on_chain = entries[count - 1]["hash"] if 0 < count <= len(entries) else genesis(eid) if count == 0 else None
    if head != on_chain:
        raise Broken(max(count, 1), f"{where}: the page's head (record {count}) is not on the chain")
    for seq in map(int, _ROW.findall(html)):
        if not 1 <= seq <= count:
            raise Broken(seq, f"{where}: the page shows record {seq}, past its chain's {count}")


def check_lanes_page(html: str, eid: str, lanes: list[list[dict]], where: str) -> None:
    """The same for an event of lanes: the page's head is the event's head of some record of each lane (its
    `data-counts`), its count their sum, and each record number (lane-seq) it shows within its lane's count."""
    m = _FOOTER.search(html)
    if not m or m.group(4) is None:
        raise Broken(1, f"{where}: no audit chain of lanes on the corrections page")
    page_eid, count, head = m.group(1), int(m.group(2)), m.group(3)
    if page_eid != eid:
        raise Broken(1, f"{where}: the page's chain is of event {page_eid}")
    counts = [int(c) for c in m.group(4).split(",") if c]
    if len(counts) != len(lanes) or sum(counts) != count:
        raise Broken(1, f"{where}: the page's lane counts {counts} are not its {count} records in {len(lanes)} lanes")
    heads = []
    for lane, (n, entries) in enumerate(zip(counts, lanes)):
        if n > len(entries):
            raise Broken(n, f"{where}: the page's head names a record past the lane's chain", lane)
        heads.append((n, entries[n - 1]["hash"] if n else lane_genesis(eid, lane)))
    if head != event_head(eid, heads):
        raise Broken(max(count, 1), f"{where}: the page's head (lanes at {counts}) is not on the chains")
    for lane, seq in ((int(a), int(b)) for a, b in _LANE_ROW.findall(html)):
        if not (lane < len(counts) and 1 <= seq <= counts[lane]):
            raise Broken(seq, f"{where}: the page shows record {lane}-{seq}, past its lane's chain", lane)


def verify(target: str, head: str | None = None) -> tuple[int, str]:
    try:
        src, folders = event_folders(target)
        if not folders:
            return 2, f"no audit.json found at {target}"
        if head is not None and len(folders) != 1:
            return 2, "--head needs one event (give its folder or its audit.json)"
        total, lines = 0, []
        for folder in folders:
            index = _index(src, folder)
            eid = index.get("event_id", "")
            try:
                if index.get("format") == FORMAT_LANES:
                    lanes = lanes_of(src, folder, index)
                    last, n = index["head"], sum(len(e) for e in lanes)
                    page_check = partial(check_lanes_page, lanes=lanes)
                else:
                    _, entries = chain_of(src, folder)
                    last, n = check(eid, entries, count=index.get("count"), head=index.get("head")), len(entries)
                    page_check = partial(check_page, entries=entries)
                if head is not None and last != head:
                    raise Broken(n, "the chain's head is not the head given with --head")
                for page in (_join(folder, "corrections.html"), *_other_languages(target, folder)):
                    html = src.read(page)
                    if html is not None:
                        page_check(html.decode("utf-8"), eid, where=page)
            except Broken as exc:
                return 1, f"FAIL event {eid} ({_join(folder, 'audit.json')}), {exc}"
            total += n
            lines.append(f"{eid}: {n} records, head {index.get('head', '')[:16]}…")
        return 0, f"OK {len(folders)} event chain(s), {total} records verified · " + "; ".join(lines)
    except Broken as exc:
        return 1, f"FAIL {exc}"
    except Unreadable as exc:
        return 2, f"cannot read: {exc}"


def _other_languages(target: str, folder: str) -> list[str]:
    """In a site folder, the same event's corrections page in the other languages (<lang>/t/<tid>/<eid>/)."""
    if target.startswith(("http://", "https://")) or not folder.startswith("t/"):
        return []
    return [f"{p.name}/{folder}/corrections.html" for p in sorted(Path(target).iterdir())
            if p.is_dir() and (p / folder).is_dir()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.verify_log", description=__doc__.split("\n\n")[0])
    parser.add_argument("target", help="a site folder, a tournament's or event's folder or URL, or an audit.json")
    parser.add_argument("--head", help="the head hash noted elsewhere (printed, photographed): the chain must end there")
    args = parser.parse_args(argv)
    code, line = verify(args.target, args.head)
    print(line, file=sys.stdout if code == 0 else sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
