"""What a process tree listens on, read from /proc: the venue's store must have no port (issue 36)."""
from __future__ import annotations

import socket
from pathlib import Path


def descendants(root: int) -> set[int]:
    """root and every process under it (by parent pid)."""
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parents[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, grew = {root}, True
    while grew:
        more = {pid for pid, ppid in parents.items() if ppid in out and pid not in out}
        out |= more
        grew = bool(more)
    return out


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = fd.readlink().as_posix()
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        pass
    return inodes


def _address(hex_addr: str) -> tuple[str, int]:
    host, port = hex_addr.split(":")
    raw = bytes.fromhex(host)
    if len(raw) == 4:
        ip = socket.inet_ntop(socket.AF_INET, raw[::-1])
    else:   # four little-endian words
        ip = socket.inet_ntop(socket.AF_INET6, b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))
    return ip, int(port, 16)


def listening(pids: set[int]) -> set[tuple[str, str, int]]:
    """(protocol, address, port) of every TCP socket listening and every UDP socket bound by these processes."""
    inodes = set().union(*(_socket_inodes(p) for p in pids)) if pids else set()
    out = set()
    for proto, wanted in (("tcp", "0A"), ("tcp6", "0A"), ("udp", "07"), ("udp6", "07")):
        try:
            lines = Path(f"/proc/net/{proto}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if cols[3] == wanted and cols[9] in inodes:
                out.add((proto, *_address(cols[1])))
    return out
