"""Where published files go: a local folder (served by `make run`) or an S3 bucket behind the CDN."""
from __future__ import annotations

import os
import threading
from pathlib import Path

CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".json": "application/json; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".js": "application/javascript; charset=utf-8",
                 ".svg": "image/svg+xml", ".png": "image/png"}


def cache_control(key: str) -> str:
    if key.endswith("feed.json"):
        return "no-cache, max-age=0, must-revalidate"  # polled by open pages
    if key.endswith(".html"):
        return "public, max-age=30"
    if key.endswith("poster.png"):
        return "public, max-age=300"   # redrawn under the same name when the event changes
    return "public, max-age=31536000, immutable"


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
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o666)
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


class S3Sink:
    parallel = True  # network-bound: the publisher writes from a small thread pool
    forkable = True

    def __init__(self, bucket: str):
        self.bucket = bucket
        self._client = None

    def client(self):
        if self._client is None:
            import boto3
            self._client = boto3.client("s3")
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
    from ..config import get_settings
    s = get_settings()
    if s.publish_bucket:
        return S3Sink(s.publish_bucket)
    return LocalSink(s.publish_dir or ".data/site")
