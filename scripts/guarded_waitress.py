"""waitress as the venue's API server needs it on a hall's Wi-Fi, where anyone can open connections to the laptop:

- poll() instead of select() (waitress's own `asyncore_use_poll` adjustment, added for Pylons/waitress#31):
  select() cannot watch a descriptor >= 1024 and its ValueError ended the process with every request in flight;
- the process's own limit of open files raised to the hard limit, so thousands of connections are possible at all;
- at most `per_address` open connections from one client address: a connection beyond them is reset at once
  (SO_LINGER 0: the client learns it now, no TIME_WAIT kept here), every other client unaffected;
- connections that send nothing are closed after `channel_timeout` (checked every `cleanup_interval` s);
- a client that hangs up mid-answer is no traceback (log_socket_errors off: a reset is the client's business).

The listening socket is drained of up to ACCEPTS_PER_WAKE waiting connections each time it is readable (waitress
accepts one per loop pass): a burst of thousands from one client is turned away in milliseconds instead of making
the next client wait behind it in the kernel's queue."""
from __future__ import annotations

import errno
import logging
import resource
import socket
import struct
import threading
import time
from collections import Counter

from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer

ACCEPTS_PER_WAKE = 256
log = logging.getLogger("cardgames.server")


def raise_open_files_limit() -> int:
    """The soft limit of open files raised to the hard one (often 1,024 soft for 4,096 or more hard); returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 1 << 20
    if soft == resource.RLIM_INFINITY or soft >= hard:
        return soft if soft != resource.RLIM_INFINITY else hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


class CappedChannel(HTTPChannel):
    """An HTTP connection that gives its address's place back when it closes (whichever way it closes)."""
    counted = False

    def del_channel(self, map=None):
        if self.counted:
            self.counted = False
            self.server.release(self.addr)
        super().del_channel(map)


class GuardedServer(TcpWSGIServer):
    channel_class = CappedChannel

    def __init__(self, application, *, per_address: int, _sock=None, bind_socket=True, **adjustments):
        self.per_address = per_address
        self.open_by_address: Counter = Counter()
        self._count_lock = threading.Lock()   # a worker thread may close a channel while the loop accepts
        self._refused_logged_at = 0.0
        self._accept_paused_until = 0.0
        super().__init__(application, _sock=_sock, bind_socket=bind_socket, asyncore_use_poll=True,
                         log_socket_errors=False, **adjustments)

    def readable(self):
        if time.monotonic() < self._accept_paused_until:
            super().readable()   # still runs the idle-connection clean-up
            return False
        return super().readable()

    def handle_accept(self):
        for _ in range(ACCEPTS_PER_WAKE):
            try:
                pair = self.socket.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    # Out of descriptors: stop accepting for a moment (the connections wait in the kernel's queue)
                    # instead of spinning on a listener that stays readable.
                    log.warning("accept() failed (%s): pausing new connections for 0.5 s", exc.strerror)
                    self._accept_paused_until = time.monotonic() + 0.5
                return
            conn, addr = pair
            if len(self._map) >= self.adj.connection_limit:
                # waitress stops listening at the limit only between loop passes; this pass is already over it
                self._reset(conn)
                continue
            if not self._take(addr[0]):
                self._reset(conn)
                self._note_refused()
                continue
            try:
                self.set_socket_options(conn)
                channel = self.channel_class(self, conn, addr, self.adj, map=self._map)
            except OSError:   # the client hung up before we got to it
                self.release(addr)
                conn.close()
                continue
            channel.counted = True

    def _take(self, address: str) -> bool:
        with self._count_lock:
            if self.open_by_address[address] >= self.per_address:
                return False
            self.open_by_address[address] += 1
            return True

    def release(self, addr) -> None:
        address = addr[0] if isinstance(addr, (tuple, list)) else addr
        with self._count_lock:
            left = self.open_by_address[address] - 1
            if left > 0:
                self.open_by_address[address] = left
            else:
                del self.open_by_address[address]

    @staticmethod
    def _reset(conn: socket.socket) -> None:
        try:
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        conn.close()

    def _note_refused(self) -> None:
        """One line a minute at most (no address: the log stays free of who the clients are)."""
        now = time.monotonic()
        if now - self._refused_logged_at > 60:
            self._refused_logged_at = now
            log.warning("a client reached its %d open connections: its new ones are reset", self.per_address)


def serve(application, *, host: str, port: int, per_address: int, sock: socket.socket | None = None,
          **adjustments) -> None:
    """Runs the server until the process is stopped (prints waitress's own "Serving on …" line first).
    `sock`: a listening socket made by whoever started this process (scripts/dev.py holds the API's across
    restarts), served as it is instead of binding a new one."""
    limit = raise_open_files_limit()
    # Room for the connections below the open-files limit: the store, the logs and the publisher's files need some.
    adjustments.setdefault("connection_limit", max(64, min(4000, limit - 256)))
    if sock is not None:
        host, port = sock.getsockname()[:2]
        adjustments.update(_sock=sock, bind_socket=False)
    server = GuardedServer(application, host=host, port=port, per_address=per_address, **adjustments)
    server.print_listen("Serving on http://{}:{}")
    server.run()
