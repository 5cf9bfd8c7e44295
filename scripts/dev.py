"""The local stack: the API (waitress, with the embedded store inside it: no store port) + the static site, with a
demo tournament; each is started again if it stops on its own. STORE=ddblocal runs DynamoDB Local on loopback
instead, as earlier versions did (docs/venue-store.md says why the embedded store is the default).

    python -m scripts.dev run              start everything, print the URLs, stop all on Ctrl-C
    python -m scripts.dev organiser NAME   create an organiser on the running stack; token last
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from . import ddblocal
from .installation import ensure_secrets

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("DATA_DIR") or ROOT / ".data")
DDB_PORT = int(os.environ.get("DDB_PORT", "8001"))
API_PORT = int(os.environ.get("API_PORT", "8000"))
SITE_PORT = int(os.environ.get("SITE_PORT", "8080"))
TABLE = os.environ.get("TABLE_NAME", "cardgames")
# The store: a SQLite file the API opens itself (chalicelib/store/embedded.py), in a folder only this user reads.
EMBEDDED = os.environ.get("STORE", "embedded") != "ddblocal"
STORE_PATH = DATA / "store" / "store.sqlite3"
# Venue mode: HOST=0.0.0.0 serves every phone in the hall from this laptop (make venue).
HOST = os.environ.get("HOST", "") or "127.0.0.1"


def lan_address() -> str:
    """The laptop's address on the hall's network: the interface a route to the outside would use (no packet
    is sent); 127.0.0.1 when there is no network at all."""
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def public_urls() -> tuple[str, str]:
    """(site, api) as phones reach them: PUBLIC_URL / PUBLIC_API_URL win; in venue mode the LAN address;
    else loopback."""
    from urllib.parse import urlsplit
    host = lan_address() if HOST == "0.0.0.0" else HOST
    site = os.environ.get("PUBLIC_URL") or f"http://{host}:{SITE_PORT}"
    api_host = urlsplit(site).hostname if os.environ.get("PUBLIC_URL") else host
    api = os.environ.get("PUBLIC_API_URL") or f"http://{api_host}:{API_PORT}"
    return site.rstrip("/"), api.rstrip("/")


def local_env() -> dict:
    env = dict(os.environ)
    site, api = public_urls()
    env.update({
        "AWS_DEFAULT_REGION": env.get("AWS_DEFAULT_REGION", "ap-east-1"),
        "AWS_ACCESS_KEY_ID": env.get("AWS_ACCESS_KEY_ID", "local"),
        "AWS_SECRET_ACCESS_KEY": env.get("AWS_SECRET_ACCESS_KEY", "local"),
        "TABLE_NAME": TABLE,
        "STAGE": "local",
        "PUBLISH_DIR": str(DATA / "site"),
        "API_URL": api,
        "SITE_URL": site,
        "PUBLIC_URL": site,   # table cards, QR codes, manage and staff links (chalicelib/services/links.py)
        # the API publishes in its own process here: glibc's arenas two, as the publisher function's (infra/stack.py)
        "MALLOC_ARENA_MAX": env.get("MALLOC_ARENA_MAX", "2"),
    })
    if EMBEDDED:
        env.update({"STORE": "embedded", "STORE_PATH": str(STORE_PATH)})
        env.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    else:
        env.update({"STORE": "ddblocal", "AWS_ENDPOINT_URL_DYNAMODB": f"http://127.0.0.1:{DDB_PORT}"})
    env.update(ensure_secrets(DATA))   # this installation's own, never a built-in value
    return env


def _apply_env() -> None:
    os.environ.update(local_env())
    sys.path.insert(0, str(ROOT))


# What the stack writes under DATA is this user's alone: the store's files (every player's phone), demo.json (an
# organiser token), secrets.json, the logs. The published pages are public, but only through the site server,
# which runs as this user, so nothing there needs to be readable by others either.
PRIVATE_UMASK = 0o077


def make_data_private(data: Path) -> None:
    """DATA 0700 and everything under it without group or other bits, including what an earlier version left
    0644 (from then on the umask keeps new files 0600 and folders 0700)."""
    data.mkdir(parents=True, exist_ok=True)
    os.chmod(data, 0o700)
    for folder, dirs, files in os.walk(data):
        for name in dirs + files:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if mode & 0o077 and not os.path.islink(path):
                os.chmod(path, mode & 0o700)


def listening_socket(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """The API's listening socket, made once by the runner and handed to each API process it starts (--fd). While
    one API process is gone (a crash, kill -9, the OOM killer) and the next one starts, the kernel keeps accepting
    phones' connections into this socket's queue and the next process answers them: a wait of a few seconds
    instead of a refused connection. (Connections the dead process had accepted are lost with it: reset.)"""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=backlog)   # SO_REUSEADDR set on POSIX


def api_command(sock: socket.socket, *extra: str) -> list[str]:
    return [sys.executable, "-m", "scripts.api_server", "--fd", str(sock.fileno()), *extra]


def wait_for_http(url: str, timeout: float = 60.0) -> None:
    """Until the server answers anything at all (a connection alone proves nothing: the runner's held socket
    accepts before the API is up)."""
    import urllib.error
    import urllib.request
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


class Supervised:
    """A process of the stack that is started again when it stops on its own (a crash, kill -9, the OOM
    killer): after 0.5 s, then with a doubling back-off up to 10 s while it keeps failing; a minute of running
    forgives it. Only Ctrl-C stops it for good."""

    def __init__(self, name: str, start, port: int):
        self.name, self._start, self.port = name, start, port
        self.proc = None
        self.delay, self.restart_at, self.started_at = 0.5, None, 0.0

    def start(self) -> None:
        self.proc, self.started_at, self.restart_at = self._start(), time.monotonic(), None

    def check(self) -> None:
        now = time.monotonic()
        if self.restart_at is not None:
            if now >= self.restart_at:
                try:
                    self.start()
                    print(f"{self.name} restarted (pid {self.proc.pid}). 已重新启动。", flush=True)
                except Exception as exc:   # noqa: BLE001 — e.g. the port still held: try again later
                    self._schedule(now, f"could not start ({exc})")
            return
        if self.proc is not None and self.proc.poll() is not None:
            if now - self.started_at > 60:
                self.delay = 0.5
            self._schedule(now, f"stopped unexpectedly (exit {self.proc.returncode})")

    def _schedule(self, now: float, why: str) -> None:
        print(f"{self.name} {why}; restarting in {self.delay:g} s (see {DATA}/*.log). 进程意外退出，正在重启。", flush=True)
        self.restart_at = now + self.delay
        self.delay = min(self.delay * 2, 10.0)

    def stop(self) -> None:
        if self.proc is not None:
            ddblocal.stop(self.proc)


def run() -> None:
    make_data_private(DATA)
    (DATA / "site").mkdir(exist_ok=True)
    services: list[Supervised] = []

    def stop_all(*_):
        for svc in reversed(services):
            svc.stop()
        print("\nStopped the API and the site. 已停止。")
        sys.exit(0)

    signal.signal(signal.SIGINT, stop_all)
    signal.signal(signal.SIGTERM, stop_all)
    if EMBEDDED:
        print(f"Store: {STORE_PATH} (embedded in the API: no network port) …", flush=True)
    else:
        print(f"Starting DynamoDB Local on port {DDB_PORT} — every interface: it has no bind option; the embedded store "
              f"(the default) has no port (data in {DATA}/ddb) …", flush=True)
        store = Supervised("DynamoDB Local", lambda: ddblocal.start(DDB_PORT, db_path=str(DATA / "ddb"),
                                                                      log_path=str(DATA / "ddblocal.log")), DDB_PORT)
        store.start()
        services.append(store)
    _apply_env()
    from chalicelib.store import dynamo, schema
    if EMBEDDED:
        import_earlier_store(dynamo.client())
    if schema.ensure_table(dynamo.client(), TABLE):
        print(f"Created table {TABLE}.")
    from chalicelib.store import migrations
    if moved := migrations.pack_tables(dynamo.Table(TABLE)):   # data of an earlier version, before the API serves
        print(f"Moved {moved} tables into this version's layout.")
    if written := migrations.written_tables_out_of_packs(dynamo.Table(TABLE)):   # results kept in packs (sessions 5-7)
        print(f"Gave {written} tables with results their own items (issue 43).")
    if spread := migrations.spread_round_tables(dynamo.Table(TABLE)):   # rounds' tables under their own keys (issue 43)
        print(f"Moved {spread} table packs and items to their rounds' own keys.")
    if chained := migrations.chain_audit(dynamo.Table(TABLE)):   # audit records of before the hash chain
        print(f"Chained {chained} earlier audit records (docs/audit-chain.md).")
    if indexed := migrations.index_retention(dynamo.Table(TABLE)):   # tournaments of before retention (issue 41)
        print(f"Indexed {indexed} earlier tournaments for the contact-data retention sweep.")
    if indexed := migrations.index_phones(dynamo.Table(TABLE)):   # entries of before the phone index ("我的")
        print(f"Indexed {indexed} earlier entries and registrations by phone.")
    if unlinked := migrations.unlink_erased_phones(dynamo.Table(TABLE)):   # left by sweeps before issue 41's fix
        print(f"Removed {unlinked} phone index items of erased entries and registrations.")
    if unbound := migrations.drop_orphan_wechat_bindings(dynamo.Table(TABLE)):   # left by sweeps before the fix
        print(f"Removed {unbound} WeChat bindings of players the retention sweep had dropped.")
    if copied := migrations.copy_rosters(dynamo.Table(TABLE)):   # events of before the roster copies (issue 43)
        print(f"Copied the rosters of {copied} earlier events for their draws.")
    start_messages()   # the SMS and e-mail providers' stand-ins, and the outbox's worker
    demo = load_demo()
    env = local_env()
    site, api = public_urls()
    print(f"Starting the API on {HOST}:{API_PORT} (waitress) …", flush=True)
    api_log = open(DATA / "api.log", "ab")
    api_socket = listening_socket(HOST, API_PORT)
    services.append(Supervised("The API", lambda: subprocess.Popen(
        api_command(api_socket), cwd=str(ROOT), env=env, stdout=api_log, stderr=subprocess.STDOUT,
        pass_fds=(api_socket.fileno(),), start_new_session=True), API_PORT))
    services.append(Supervised("The site", lambda: subprocess.Popen(
        [sys.executable, "-m", "scripts.site_server", "--host", HOST, "--port", str(SITE_PORT), "--frontend",
         str(ROOT / "frontend" / "dist"), "--published", str(DATA / "site"), "--api", api], cwd=str(ROOT), env=env,
        start_new_session=True), SITE_PORT))
    for svc in services[0 if EMBEDDED else 1:]:
        svc.start()
    probe = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(HOST, HOST)
    wait_for_http(f"http://{f'[{probe}]' if ':' in probe else probe}:{API_PORT}/health", 60)
    ddblocal.wait_for_port(SITE_PORT, 30)
    publish_demo(demo)
    tid = demo["tournament_id"]
    venue = HOST != "127.0.0.1"
    print(f"""
Ready. 已启动。{"  Venue mode: phones on this network open the addresses below. 场馆模式：同一网络的手机可直接访问。" if venue else ""}
  Site (participants, organiser console)  {site}/
  Organiser console                       {site}/organiser.html
  Demo tournament page                    {site}/?t={tid}
  Published results                       {site}/t/{tid}/index.html
  API                                     {api}/   (OpenAPI: /openapi.json)
  Store                                   {STORE_PATH if EMBEDDED else f"DynamoDB Local, http://127.0.0.1:{DDB_PORT}/"}
  Demo organiser token                    {demo['token']}

Try:  curl -H 'Authorization: Bearer {demo['token']}' {api}/tournaments
Logs in {DATA}/api.log. A process that stops is started again; Ctrl-C stops everything.
""", flush=True)
    if venue:
        import segno
        print("Scan to open the organiser console 扫码打开组委会后台:")
        segno.make(f"{site}/organiser.html", error="m").terminal(compact=True)
    next_sweep = time.monotonic() + 60
    while True:
        for svc in services:
            svc.check()
        if time.monotonic() >= next_sweep:   # what AWS's 5-minute schedule does (app.py sweep_holds)
            next_sweep = time.monotonic() + SWEEP_EVERY_S
            sweep_holds()
        time.sleep(0.25)


def import_earlier_store(client) -> None:
    """A venue's data in DynamoDB Local's files (earlier versions) carried into the embedded store, once."""
    from .store_import import ImportRefused, import_folder
    try:
        moved = import_folder(DATA / "ddb", client)
    except ImportRefused as exc:
        raise SystemExit(f"The earlier store in {DATA / 'ddb'} could not be carried over, nothing was changed: {exc}\n"
                         "Run it once more with STORE=ddblocal (the earlier store) and ask for help. "
                         "旧数据无法迁移，未做任何更改。") from None
    if moved is not None:
        print(f"Carried {moved} items over from DynamoDB Local's files into {STORE_PATH} "
              f"(the old folder is kept as {DATA / 'ddb.imported'}). 已迁移旧数据。", flush=True)


SWEEP_EVERY_S = 300
MESSAGES_EVERY_S = 2.0


def start_messages(data: Path = DATA):
    """The message providers' local stand-ins (scripts/message_standins.py: Tencent Cloud SMS, Aliyun SMS, SNS,
    an SMTP server), their addresses in this process's environment (the API's too: it is started after), and the
    outbox's worker as a thread: what AWS's scheduled function does, every few seconds (a sign-in code cannot wait
    a minute). Every message sent is also a line of .data/outbox.jsonl. SMS_PROVIDER=aliyun tries the other one."""
    import threading

    from .message_standins import Standins
    standins = Standins().start()
    os.environ.update(standins.env(os.environ.get("SMS_PROVIDER", "tencent"), str(data / "outbox.jsonl")))
    stop = threading.Event()

    def work():
        from chalicelib.api.jobs import deliver_messages
        while not stop.wait(MESSAGES_EVERY_S):
            try:
                deliver_messages()
            except Exception as exc:   # noqa: BLE001 — the store may be starting or down: the next pass tries again
                print(f"Message worker: a pass failed ({type(exc).__name__}); trying again.", flush=True)
    threading.Thread(target=work, daemon=True, name="messages").start()
    return standins, stop


def sweep_holds() -> dict | None:
    """Releases the holds whose time ran out (unpaid online checkouts, places kept for the desk past their bound)
    and gives their places to the waitlist, as the scheduled job does in AWS. A store that does not answer now
    is tried again at the next sweep."""
    from chalicelib.api.jobs import sweep_holds as job
    try:
        result = job()
    except Exception as exc:   # noqa: BLE001 — the runner keeps running: the next sweep tries again
        print(f"Hold sweep failed ({type(exc).__name__}); trying again in {SWEEP_EVERY_S // 60} minutes.", flush=True)
        return None
    if result.get("released") or result.get("confirmed"):
        print(f"Hold sweep: {result['released']} released, {result['confirmed']} confirmed.", flush=True)
    return result


def load_demo() -> dict:
    """Loads the demo tournament once; its ids and token are kept in .data/demo.json."""
    from chalicelib.store.repositories import Repos
    marker = DATA / "demo.json"
    if marker.exists():
        demo = json.loads(marker.read_text())
        if Repos().tournaments.get(demo["tournament_id"]) is not None:
            return demo
    from .demo import load
    demo = load()
    marker.write_text(json.dumps(demo, ensure_ascii=False, indent=2))
    print("Loaded the demo tournament.")
    return demo


def publish_demo(demo: dict) -> None:
    try:
        from chalicelib.services import publishing
    except ImportError:
        return
    try:
        from chalicelib.bootstrap import deps
        publishing.publish_tournament(deps(), demo["tournament_id"])
    except Exception as exc:  # noqa: BLE001 — the site still serves; say why
        print(f"Publishing the demo failed: {exc}")


def organiser(name: str) -> None:
    """An organiser account. With LOGIN and PASSWORD set it signs in at the console with them; the API token
    (for scripts) is printed last either way."""
    if not name.strip():
        raise SystemExit('Give a name: make organiser NAME="河池商会" [LOGIN=13800000000 PASSWORD=…]')
    _apply_env()
    from chalicelib.bootstrap import deps
    from chalicelib.services.links import site_url
    from chalicelib.services.organisers import create_account, create_organiser
    login, password = os.environ.get("LOGIN", "").strip(), os.environ.get("PASSWORD", "")
    try:
        if login:
            org, token = create_account(deps(), name.strip(), login, password)
        else:
            org, token = create_organiser(deps(), name.strip())
    except Exception as exc:   # noqa: BLE001 — the operator's command says why in one line
        raise SystemExit(f"Could not create the organiser (has `make run` been started once?): {exc}") from None
    print(f"Organiser {org.name} ({org.id}) created.")
    if login:
        print(f"Sign in at {site_url()}/organiser.html with {login} and the password given.")
    else:
        print(f"Sign-in link (this browser keeps the token): {site_url()}/organiser.html  — paste the token under "
              "“使用 API 令牌登录”.")
    print("API token:")
    print(token)


def reset_password(login: str) -> None:
    """The platform operator's password reset (docs/auth.md says how SMS/e-mail reset would be added)."""
    _apply_env()
    from chalicelib.bootstrap import deps
    from chalicelib.services.organisers import reset_password as reset
    password = os.environ.get("PASSWORD", "")
    if not login or not password:
        raise SystemExit("make reset-password LOGIN=13800000000 PASSWORD='a new password'")
    reset(deps(), login, password)
    print(f"Password of {login} reset.")


if __name__ == "__main__":
    # Inherited by DynamoDB Local, the API, the site server and the publisher: every file any of them makes is 0600.
    os.umask(PRIVATE_UMASK)
    cmd = sys.argv[1] if len(sys.argv) > 1 else "run"
    if cmd == "run":
        run()
    elif cmd == "organiser":
        organiser(" ".join(sys.argv[2:]))
    elif cmd == "reset-password":
        reset_password(os.environ.get("LOGIN", ""))
    else:
        raise SystemExit(__doc__)
