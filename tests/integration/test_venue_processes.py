"""The venue's processes for real (issue 20): the API under waitress refusing a huge body unread, answering 503
quickly while the store is stopped or frozen and 200 again by itself, and the runner (`make run`) bringing a
killed API back while the site never stops."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from scripts import ddblocal

ROOT = Path(__file__).resolve().parents[2]


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _get(url: str, timeout: float = 10.0) -> tuple[int, dict, dict]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, dict(r.headers), json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read() or b"{}")


def _api(endpoint: str, table: str = "venue") -> tuple[subprocess.Popen, int]:
    port = ddblocal.free_port()
    env = dict(os.environ, AWS_ENDPOINT_URL_DYNAMODB=endpoint, TABLE_NAME=table, STAGE="local",
               AWS_DEFAULT_REGION="ap-east-1", AWS_ACCESS_KEY_ID="local", AWS_SECRET_ACCESS_KEY="local")
    # The store's own timeouts, whatever this process was given: importing bench/ (tests/e2e/test_app.py reads its
    # budgets) sets DDB_READ_TIMEOUT_S=30 for benches, and a frozen store then held a request 30 s.
    for knob in ("DDB_READ_TIMEOUT_S", "DDB_MAX_ATTEMPTS"):
        env.pop(knob, None)
    log = open(ROOT / ".data" / "venue-test-api.log", "ab")
    proc = subprocess.Popen([sys.executable, "-m", "scripts.api_server", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    ddblocal.wait_for_port(port, 60)
    return proc, port


@pytest.fixture
def own_store():
    """A DynamoDB Local of this test alone: it gets stopped and frozen."""
    port = ddblocal.free_port()
    proc = ddblocal.start(port, log_path=str(ROOT / ".data" / "ddblocal-venue-test.log"))
    endpoint = f"http://127.0.0.1:{port}"
    from chalicelib.store import dynamo, schema
    old = os.environ.get("AWS_ENDPOINT_URL_DYNAMODB")
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = endpoint
    dynamo.reset_client()
    schema.ensure_table(dynamo.client(), "venue")
    state = {"proc": proc, "port": port, "endpoint": endpoint}
    yield state
    if state["proc"].poll() is None:
        os.kill(state["proc"].pid, signal.SIGCONT)
    ddblocal.stop(state["proc"])
    if old is None:
        os.environ.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    else:
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = old
    dynamo.reset_client()


def _answer(s: socket.socket) -> str:
    """The whole answer: the server closes the connection after refusing the body."""
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return out.decode("utf-8", "replace")


def test_a_300_mb_body_is_refused_from_its_length_without_reading_it(own_store):
    api, port = _api(own_store["endpoint"])
    try:
        _get(f"http://127.0.0.1:{port}/health")
        before = _rss_kb(api.pid)
        started = time.monotonic()
        for _ in range(3):   # three unauthenticated 300 MB POSTs, as the probe sent
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(b"POST /tournaments HTTP/1.1\r\nHost: hall\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 314572800\r\n\r\n" + b"x" * 65536)
                head = _answer(s)
            assert head.startswith("HTTP/1.1 413"), head[:200]
            assert '"payload_too_large"' in head
        assert time.monotonic() - started < 5
        # a chunked body without a length is cut at the cap as well
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            chunk = b"x" * 65536
            s.sendall(b"POST /tournaments HTTP/1.1\r\nHost: hall\r\nTransfer-Encoding: chunked\r\n\r\n")
            try:
                for _ in range(40):   # 2.5 MiB offered
                    s.sendall(b"10000\r\n" + chunk + b"\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            head = _answer(s)
        assert head.startswith("HTTP/1.1 413"), head[:200]
        grown = _rss_kb(api.pid) - before
        assert grown < 20_000, f"the API grew by {grown} kB"
        status, _, _ = _get(f"http://127.0.0.1:{port}/health")
        assert status == 200
    finally:
        ddblocal.stop(api)


def test_the_store_stopped_or_frozen_gives_quick_503s_and_the_api_comes_back_by_itself(own_store):
    api, port = _api(own_store["endpoint"])
    base = f"http://127.0.0.1:{port}"
    try:
        assert _get(f"{base}/health")[0] == 200
        # frozen (SIGSTOP): connections open, nothing answers
        os.kill(own_store["proc"].pid, signal.SIGSTOP)
        _until_stopped(own_store["proc"].pid)
        answers = []
        for path in ("/health", "/public/tournaments/01ARZ3NDEKTSV4RRFFQ69G5FAV", "/health"):
            t0 = time.monotonic()
            status, headers, body = _get(base + path, timeout=15)
            answers.append((path, status, time.monotonic() - t0, headers.get("Retry-After"), body.get("code")))
        for _path, status, took, retry, code in answers:
            assert status == 503 and code == "service_unavailable" and retry, answers
            assert took < 5, answers   # 1.5 s read timeout × 2 attempts, then the breaker: never a hang
        os.kill(own_store["proc"].pid, signal.SIGCONT)
        _until_200(f"{base}/health", within=10)
        # stopped: the process is gone, connections are refused
        ddblocal.stop(own_store["proc"])
        t0 = time.monotonic()
        status, headers, body = _get(f"{base}/health", timeout=15)
        assert status == 503 and headers.get("Retry-After") and time.monotonic() - t0 < 3
        own_store["proc"] = ddblocal.start(own_store["port"])
        _until_200(f"{base}/health", within=10)
        log = (ROOT / ".data" / "venue-test-api.log").read_text(errors="replace")
        assert "Traceback" not in log.split("Serving on")[-1]   # one line per failed request, no tracebacks
    finally:
        ddblocal.stop(api)


def _until_stopped(pid: int) -> None:
    """A signal is delivered asynchronously: wait until every thread of the process is stopped (state T)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < 5:
        states = [(task / "stat").read_text().rsplit(")", 1)[1].split()[0] for task in Path(f"/proc/{pid}/task").iterdir()]
        if all(st in "Tt" for st in states):
            time.sleep(0.1)
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} did not stop")


def _until_200(url: str, within: float) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < within:
        try:
            if _get(url, timeout=3)[0] == 200:
                return time.monotonic() - t0
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} did not answer 200 within {within} s")


def _until_gone(pid: int) -> None:
    """Until the killed process has let go of its sockets (it is a zombie or gone)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < 5:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return
        except OSError:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not end")


def _children_running(parent: int, module: str) -> list[int]:
    """The live child processes of `parent` started as `python -m module`."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
                args = [c.decode(errors="replace") for c in (d / "cmdline").read_bytes().split(b"\0")]
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[1]) == parent and module in args:
                out.append(int(d.name))
    return out


def _assert_the_store_has_no_port(runner_pid: int, api_pid: int, data: str, ports: dict) -> None:
    """Issue 36: the stack listens on the API's and the site's ports, and otherwise only on loopback for the
    message providers' stand-ins (issue 41: one HTTP server for the SMS providers, one SMTP server); the store is
    a file inside the API's process, 0600 in a 0700 folder; from the machine's network address the store's old
    port refuses."""
    from scripts.dev import lan_address
    from tests.integration.listeners import descendants, listening
    pids = descendants(runner_pid) | descendants(api_pid) | set(_children_running(runner_pid, "scripts.site_server"))
    found = listening(pids)
    served = {int(ports["API_PORT"]), int(ports["SITE_PORT"])}
    assert served <= {port for _, _, port in found}, found
    standins = [(addr, port) for _, addr, port in found if port not in served]
    assert len(standins) <= 2 and all(addr == "127.0.0.1" for addr, _ in standins), found
    store = Path(data) / "store" / "store.sqlite3"
    assert any(fd.resolve() == store.resolve() for fd in Path(f"/proc/{api_pid}/fd").iterdir()), "the API holds the store"
    assert store.stat().st_mode & 0o777 == 0o600 and store.parent.stat().st_mode & 0o777 == 0o700
    for pid in pids:   # no DynamoDB Local among the stack's processes
        try:
            assert b"DynamoDBLocal.jar" not in Path(f"/proc/{pid}/cmdline").read_bytes()
        except FileNotFoundError:
            pass
    lan = lan_address()
    if lan != "127.0.0.1":   # a machine with no network has no such address: the listener check above still holds
        with pytest.raises(OSError):
            socket.create_connection((lan, int(ports["DDB_PORT"])), timeout=1).close()


def test_the_runner_brings_a_killed_api_back_and_the_site_never_stops():
    data = tempfile.mkdtemp(prefix="venue-run-")
    os.chmod(data, 0o755)
    (Path(data) / "site").mkdir(mode=0o755)
    (Path(data) / "api.log").write_text("left readable by an earlier version\n")
    os.chmod(Path(data) / "api.log", 0o644)
    ports = {k: str(ddblocal.free_port()) for k in ("DDB_PORT", "API_PORT", "SITE_PORT")}
    env = dict(os.environ, DATA_DIR=data, HOST="127.0.0.1", TABLE_NAME="cardgames", **ports)
    env.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    env.pop("TABLE_CODE_SECRET", None)     # the runner makes this installation's own
    runner = subprocess.Popen([sys.executable, "-m", "scripts.dev", "run"], cwd=str(ROOT), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    threading.Thread(target=lambda: [lines.append(x) for x in runner.stdout], daemon=True).start()
    site, api = f"http://127.0.0.1:{ports['SITE_PORT']}", f"http://127.0.0.1:{ports['API_PORT']}"
    try:
        t0 = time.monotonic()
        while not any(x.startswith("Ready") for x in lines):
            assert runner.poll() is None and time.monotonic() - t0 < 180, "".join(lines)[-3000:]
            time.sleep(0.2)
        assert (Path(data) / "secrets.json").exists()
        # the store's files, demo.json (a token), the secrets, the logs, the pages: this user's alone
        assert os.stat(data).st_mode & 0o777 == 0o700
        readable = {str(p.relative_to(data)): oct(p.stat().st_mode & 0o777) for p in Path(data).rglob("*")
                    if p.stat().st_mode & 0o077}
        assert not readable, readable
        assert {"demo.json", "secrets.json", "api.log", "site"} <= {p.name for p in Path(data).iterdir()}
        (api_pid,) = _children_running(runner.pid, "scripts.api_server")
        _assert_the_store_has_no_port(runner.pid, api_pid, data, ports)
        site_down, stop = [], threading.Event()

        def watch_site():
            # "stopped" is a refused or reset connection; a slow answer on a loaded machine is not a stop
            while not stop.is_set():
                try:
                    urllib.request.urlopen(f"{site}/index.html", timeout=10).read()
                except (ConnectionRefusedError, ConnectionResetError) as exc:
                    site_down.append(repr(exc))
                except urllib.error.URLError as exc:
                    if isinstance(exc.reason, (ConnectionRefusedError, ConnectionResetError)):
                        site_down.append(repr(exc))
                except OSError:
                    pass
                time.sleep(0.1)
        watcher = threading.Thread(target=watch_site)
        watcher.start()
        os.kill(api_pid, signal.SIGKILL)
        _until_gone(api_pid)
        # a phone asking while no API process is up: its connection waits in the runner's socket, not refused
        t0 = time.monotonic()
        assert _get(f"{api}/health", timeout=15)[0] == 200
        back = time.monotonic() - t0
        stop.set()
        watcher.join()
        assert not site_down, site_down[:3]
        (new_pid,) = _children_running(runner.pid, "scripts.api_server")
        assert new_pid != api_pid and back < 10
        assert any("restarted" in x for x in lines)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- the runner said:\n{''.join(lines)[-4000:]}") from None
    finally:
        try:
            os.killpg(runner.pid, signal.SIGINT)
            runner.wait(timeout=30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(runner.pid, signal.SIGKILL)
    for port in ports.values():   # Ctrl-C stopped everything
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", int(port)), timeout=1).close()
