"""Where published files go: a local folder (served by `make run`) or an S3 bucket behind the CDN."""
from __future__ import annotations

import logging
import os
import re
import struct
import threading
from functools import cache
from pathlib import Path

log = logging.getLogger("cardgames.publish")

CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".json": "application/json; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".js": "application/javascript; charset=utf-8",
                 ".svg": "image/svg+xml", ".png": "image/png"}


def cache_control(key: str) -> str:
    if key.startswith("live/"):
        from .live import CACHE_CONTROL
        return CACHE_CONTROL   # a table's live JSON, polled by its phones through the CDN (issue 43)
    if key.endswith("feed.json"):
        return "no-cache, max-age=0, must-revalidate"  # polled by open pages
    if key.endswith(".html") or "/places-" in key or "/find/" in key:   # the entry pages' place charts and
        return "public, max-age=30"   # find-my-table's index shards (each draw rewrites them) change under their name too
    if _AUDIT_SEGMENT.search(key):
        return "public, max-age=31536000, immutable"   # a full segment of an audit chain never changes again
    # Everything else is rewritten under its own name: the scripts and styles when the code changes (a year's
    # immutable kept a phone on an old live.js or find.js long after a deploy), audit.json at every audited change,
    # the poster when the event changes. The CDN holds these at most 5 minutes too (infra/stack.py's PagesCache).
    return "public, max-age=300"


# audit-<k>.json (one chain) and audit-<lane>-<k>.json (lanes): only full segments are written under these names
_AUDIT_SEGMENT = re.compile(r"/audit-\d+(?:-\d+)?\.json$")


class LocalSink:
    forkable = True  # another process can write here too
    parallel = True  # a file's rename waits on the disk (ms each on a busy machine): written beside the rendering

    def __init__(self, root: str):
        self.root = Path(root)
        self._base = str(self.root)
        self._made: set = set()

    def write(self, key: str, body: bytes) -> None:
        # os-level calls on strings, not pathlib and io: a full publish writes 30,700 files, and the Python around
        # each write (paths, a buffered file) cost as much as the kernel's part
        folder, _, name = f"{self._base}/{key}".rpartition("/")
        if folder not in self._made:
            os.makedirs(folder, exist_ok=True)
            self._made.add(folder)
        tmp = f"{folder}/.{name}.{os.getpid()}.{threading.get_ident()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileNotFoundError:   # the folder was deleted since (the sink lives as long as the server)
            os.makedirs(folder, exist_ok=True)
            fd = os.open(tmp, flags, 0o666)
        try:
            view = memoryview(body)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, f"{folder}/{name}")  # readers never see half a file

    def read(self, key: str) -> bytes | None:
        path = self.root / key
        return path.read_bytes() if path.exists() else None

    def writer(self) -> WriterProcess | None:
        """For a publish of thousands of files: a process of its own writing them (None where there is no fork)."""
        return WriterProcess(self) if hasattr(os, "fork") else None


_FRAME = struct.Struct("<II")   # a file through the writer's pipe: its key's length and its body's, then both


class WriterProcess:
    """Writes a sink's files in a forked child fed through a pipe (a full publish at 10,000 entries writes 30,700
    files). Threads in the rendering process did it before: every one of a file's four system calls gave the GIL
    back and waited to take it again from the renderer, about as much CPU as the kernel's own part (measured). The
    renderer now pays one pipe write per file; the child makes the calls one after the other without waiting on
    anybody, and its waits on the disk hold up nothing. `close()` waits for the last file and raises if any write
    failed (the publisher saves its manifest only after)."""

    PIPE_BYTES = 1 << 20   # a pipe of 1 MiB (Linux allows that much unprivileged): the renderer rarely waits

    def __init__(self, sink: LocalSink):
        from ..forked import fork_with_pipe
        pid, fd = fork_with_pipe(child_reads=True)
        if pid == 0:
            code = 1
            try:
                code = self._serve(sink, fd)
            finally:
                os._exit(code)
        try:
            import fcntl
            fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), self.PIPE_BYTES)
        except (ImportError, OSError):
            pass   # the default pipe: slower, not wrong
        self.pid, self.fd = pid, fd
        self.out = os.fdopen(fd, "wb", buffering=self.PIPE_BYTES, closefd=False)   # closed by close_kept only

    @staticmethod
    def _serve(sink: LocalSink, fd: int) -> int:
        failed, written = None, 0
        with os.fdopen(fd, "rb", buffering=WriterProcess.PIPE_BYTES) as pipe:
            while True:
                head = pipe.read(_FRAME.size)
                if len(head) < _FRAME.size:
                    break
                key_len, body_len = _FRAME.unpack(head)
                raw, body = pipe.read(key_len), pipe.read(body_len)
                if len(raw) < key_len or len(body) < body_len:   # the renderer died mid-file: never half a page
                    log.error("the publisher's pipe ended inside a file: %d of its files written", written)
                    return 1
                key = raw.decode("utf-8")
                if failed is None:
                    try:
                        sink.write(key, body)
                        written += 1
                    except OSError as exc:   # the disk full, say: the rest is read and dropped, the parent told
                        failed = exc
        if failed is not None:
            log.error("writing the published files failed: %s", failed)
        return 0 if failed is None else 1

    def write(self, key: str, body: bytes) -> None:
        raw = key.encode("utf-8")
        try:
            self.out.write(_FRAME.pack(len(raw), len(body)) + raw)
            self.out.write(body)
        except BrokenPipeError:
            self.close()   # the writer is gone: its status says why
            raise OSError("the writer process ended before the publish did") from None

    def close(self, abandon: bool = False) -> None:
        """Waits for every file to be out; raises when one was not. `abandon`: the publish failed, stop at once."""
        if self.pid is None:
            return
        pid, self.pid = self.pid, None
        if abandon:
            import signal
            os.kill(pid, signal.SIGKILL)
        from ..forked import close_kept
        try:
            close_kept(self.fd, self.out)
        except BrokenPipeError:
            pass   # the writer is gone: its status says why
        finally:
            status = os.waitpid(pid, 0)[1]
        if status != 0 and not abandon:
            raise OSError(f"writing the published files failed (writer status {status})")


_client_lock = threading.Lock()


def _new_client_lock() -> None:   # a child's copy may have been held by another thread of the parent
    global _client_lock
    _client_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_client_lock)


class S3Sink:
    parallel = True  # network-bound: the publisher writes from a small thread pool
    forkable = True

    THREADS = 8   # the publisher's pool of PUTs per process (services/publishing.py)

    def __init__(self, bucket: str):
        self.bucket = bucket
        self._client = None
        self._client_pid = None

    def client(self):
        # One client per process: a forked language (services/publishing._run_forked) must not use the parent's
        # pooled connections (the parent read .places.json through them before forking; two processes on one
        # socket read each other's answers). A pool as large as the threads that share it.
        if self._client is None or self._client_pid != os.getpid():
            with _client_lock:   # the pool's threads all ask at once in a new process (boto3's session is not
                if self._client is None or self._client_pid != os.getpid():   # safe to share while it makes one)
                    import boto3
                    from botocore.config import Config
                    self._client = boto3.client("s3", config=Config(max_pool_connections=self.THREADS + 2))
                    self._client_pid = os.getpid()
        return self._client

    def read(self, key: str) -> bytes | None:
        try:
            return self.client().get_object(Bucket=self.bucket, Key=key)["Body"].read()
        except self.client().exceptions.NoSuchKey:
            return None

    def write(self, key: str, body: bytes) -> None:
        self.client().put_object(Bucket=self.bucket, Key=key, Body=body,
                                ContentType=CONTENT_TYPES.get(Path(key).suffix, "application/octet-stream"),
                                CacheControl=cache_control(key))


class MemorySink:
    """For tests and benchmarks."""

    def __init__(self):
        self.files: dict[str, bytes] = {}

    def write(self, key: str, body: bytes) -> None:
        self.files[key] = body

    def read(self, key: str) -> bytes | None:
        return self.files.get(key)


def default_sink():
    """The settings' sink, one per process: the publisher's cache (services/publishing.py) holds for one sink, and
    a sink made anew for every publish threw it away each time (every result read the whole tournament again)."""
    from ..config import get_settings
    s = get_settings()
    return _sink_for(s.publish_bucket or None, s.publish_dir or ".data/site")


@cache
def _sink_for(bucket: str | None, folder: str):
    return S3Sink(bucket) if bucket else LocalSink(folder)
