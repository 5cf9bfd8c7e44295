"""What is deployed is what is tested (issue 21): the Lambda package `cdk synth` builds for the dev stage —
the very zip `cdk deploy` uploads — unpacked and run the way Lambda runs it, each function in a clean
interpreter (`python -I -S -B`) with only the package and the runtime's boto3 on its path, driven with the event
shapes AWS sends: API Gateway proxy events for a whole small day, an SQS batch for the publisher, the
schedule's event for the sweeper. The package's contents are checked against the requirements and against
what the Lambda platform's glibc can load; its size and cold start are printed."""
from __future__ import annotations

import ast
import importlib.util
import io
import json
import random
import re
import sys
import sysconfig
import zipfile
from datetime import date, timedelta
from itertools import combinations
from pathlib import Path

from infra.lambda_package import LAMBDA_GLIBC, required_distributions
from tests.api.play import close, draw, enter_and_confirm, people, setup_event
from tests.api.test_events_played import random_deal
from tests.deploy import artifact
from tests.deploy.conftest import FIGURES
from tests.factories import Api, tournament_body

ROOT = Path(__file__).resolve().parents[2]
MB = 1024 * 1024
LAMBDA_UNZIPPED_LIMIT = 250 * MB        # function code and layers, unzipped
# The modules app code imports only inside functions (so a cold start does not pay for them): each must be
# in the package and be imported by the day below.
LAZY = ("highspy", "numpy", "rustworkx", "argon2", "openpyxl", "stripe", "jinja2", "segno", "PIL")


def _runtime(template) -> str:
    runtimes = {template["Resources"][fn]["Properties"]["Runtime"] for fn in ("APIHandler", "PublishFromQueue", "SweepHolds")}
    assert len(runtimes) == 1, runtimes
    return runtimes.pop()


def test_this_interpreter_is_the_functions_runtime(template):
    """The clean interpreters below are this Python: it must be the runtime's version for the test to mean it."""
    assert artifact.LAMBDA_RUNTIMES[_runtime(template)] == sys.version_info[:2]


def test_every_runtime_dependency_is_in_the_package(package):
    found = artifact.distributions_in(package.dir)
    direct = {re.split(r"[<>=!~\[; ]", line.strip(), maxsplit=1)[0].lower()
              for line in (ROOT / "requirements.txt").read_text().splitlines() if line.strip() and not line.startswith("#")}
    # the direct requirements and what they pull in (numpy under highspy: the package once shipped without it)
    wanted = direct | {"numpy", "pydantic-core", "argon2-cffi-bindings", "markupsafe", "et-xmlfile", "requests"}
    assert wanted <= required_distributions(ROOT / "requirements.txt")
    assert not wanted - set(found), f"missing from the package: {sorted(wanted - set(found))}"
    assert not required_distributions(ROOT / "requirements.txt") - set(found)


def test_every_binary_loads_on_the_runtimes_glibc(template, package):
    """Wheels must claim a manylinux tag the runtime's glibc satisfies, and each shared object's own symbol
    versions must not ask for a newer glibc (this machine's glibc is newer than Lambda's: a binary that
    needs more would pass the day below and fail in AWS)."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile
    glibc = LAMBDA_GLIBC[_runtime(template)]
    for name, dist in artifact.distributions_in(package.dir).items():
        platforms = {t.split("-")[-1] for t in dist["tags"]}
        ok = {"any"} | {p for p in platforms if _manylinux(p) and _manylinux(p) <= glibc}
        assert platforms & ok, f"{name} {dist['version']}: {sorted(platforms)} need a newer glibc than {glibc}"
    binaries, worst = 0, ((0, 0), "")
    for path in package.dir.rglob("*.so*"):
        if not path.is_file():
            continue
        with open(path, "rb") as f:
            try:
                elf = ELFFile(f)
            except ELFError:
                continue
            binaries += 1
            assert elf["e_machine"] == "EM_X86_64", (path, elf["e_machine"])
            section = elf.get_section_by_name(".gnu.version_r")
            for _, aux in (section.iter_versions() if section else ()):
                for v in aux:
                    m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", v.name)
                    if m and (int(m[1]), int(m[2])) > worst[0]:
                        worst = ((int(m[1]), int(m[2])), str(path.relative_to(package.dir)))
    assert binaries > 10
    assert worst[0] <= glibc, f"{worst[1]} needs GLIBC_{worst[0][0]}.{worst[0][1]}; {_runtime(template)} has {glibc}"
    FIGURES["newest glibc symbol asked for"] = f"GLIBC_{worst[0][0]}.{worst[0][1]} ({worst[1]}); runtime has {glibc[0]}.{glibc[1]}"


def _manylinux(platform: str):
    legacy = {"manylinux1_x86_64": (2, 5), "manylinux2010_x86_64": (2, 12), "manylinux2014_x86_64": (2, 17)}
    if platform in legacy:
        return legacy[platform]
    m = re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64", platform)
    return (int(m[1]), int(m[2])) if m else None


def test_every_file_is_readable_by_the_functions_user_and_compiled(package):
    """Lambda runs the code as a user that does not own the files; and with bytecode for every module a cold
    start does not compile (the read-only /var/task would make it compile on every one)."""
    with zipfile.ZipFile(package.zip) as z:
        infos = z.infolist()
    unreadable = [i.filename for i in infos if not i.is_dir() and (i.external_attr >> 16) & 0o444 != 0o444]
    assert not unreadable, unreadable[:10]
    names = {i.filename for i in infos}
    modules = [n for n in names if n.endswith(".py") and n.split("/", 1)[0] in ("app.py", "chalicelib", "chalice", "pydantic", "numpy")]
    uncompiled = [n for n in modules if importlib.util.cache_from_source(n) not in names]
    assert modules and not uncompiled, uncompiled[:10]


def test_the_package_fits_lambdas_limit(package):
    sizes = package.sizes
    largest = sorted(sizes["per_top"].items(), key=lambda kv: -kv[1])[:4]
    FIGURES["package"] = (f"{sizes['unzipped'] / MB:.1f} MB unzipped of Lambda's 250 MB "
                          f"({sizes['zipped'] / MB:.1f} MB zipped, {package.zip.name})")
    FIGURES["largest parts (with bytecode)"] = ", ".join(f"{n} {b / MB:.1f} MB" for n, b in largest)
    assert sizes["unzipped"] < LAMBDA_UNZIPPED_LIMIT


def third_party_imports() -> set[str]:
    """Every top-level module app.py and chalicelib import that is neither the standard library nor the app."""
    names = set()
    for path in [ROOT / "app.py", *(ROOT / "chalicelib").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in ("chalicelib", "__future__")}


def test_every_module_the_code_imports_imports_from_the_package(functions):
    """Any third-party import in the code — at the top or inside a function, a payment SDK as it lands —
    imports in the deployed environment."""
    wanted = third_party_imports()
    assert set(LAZY) - {"numpy"} <= wanted and "chalice" in wanted
    failed = functions["SweepHolds"].imports(sorted(wanted))
    assert not failed, failed


def test_a_day_through_the_deployed_handlers(template, package, aws, functions, gateway, operator_repos,
                                            message_standins):
    from chalicelib import bootstrap
    from chalicelib.engine.formats.common import Contestant
    from chalicelib.models import RegistrationIn
    from chalicelib.payments.stripe_gateway import StripeGateway, sign_payload
    from chalicelib.services.organisers import create_account
    from chalicelib.services.registration import register
    from tests.fakes import FakeStripe
    from tests.engine.exact_reference import min_three_seat_violations
    api_fn = functions["APIHandler"]
    assert api_fn.python[:2] == artifact.LAMBDA_RUNTIMES[_runtime(template)]
    assert api_fn.sys_path[:2] == [str(package.dir), str(package.runtime)]

    # The operator creates the organiser with the source tree's tools; the organiser signs in on the phone.
    create_account(operator_repos, "部署测试商会", "13800002121", "deploy day password")
    signed = Api(gateway).post("/auth/sign-in", {"login": "13800002121", "password": "deploy day password"})
    assert signed.status_code == 200, signed.data
    api = Api(gateway, signed.data["token"])
    assert api.get("/health").status_code == 200

    # The functions keep real time: the day is ten days from today.
    day = (date.today() + timedelta(days=10)).isoformat()

    # Dou Dizhu, nine players, five rounds: after four rounds everyone has met everyone, so the fifth
    # (at the latest) is drawn by the exact integer programme (HiGHS) — the round the broken package lost.
    ddz = {"name": "二打一积分赛", "game": "doudizhu", "entry": "individual", "capacity": 12, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 5}]}
    # 龘 and the emoji are outside the packaged font's subset (GB2312): the posters draw them as □
    tid, eid, ids = setup_event(api, ddz, people(9), tournament_body(name="恒全杯龘商会联谊赛🀄️", starts_on=day,
                                                                      ends_on=day))
    rng = random.Random(21)
    opponents: dict[str, set] = {e: set() for e in ids}
    repeats_by_round = []
    for n in range(1, 6):
        field = [Contestant(id=e, number=k + 1, opponents=frozenset(opponents[e])) for k, e in enumerate(ids)]
        minimum = min_three_seat_violations(field)
        rnd = draw(api, eid, seed=n)
        assert len(rnd["tables"]) == 3 and not rnd["byes"]
        repeats = 0
        for table in rnd["tables"]:
            players = [s["entry_id"] for s in table["sides"]]
            for a, b in combinations(players, 2):
                repeats += b in opponents[a]
                opponents[a].add(b)
                opponents[b].add(a)
            res = enter_and_confirm(api, eid, rnd, table, {"deals": [random_deal(rng) for _ in range(4)]})
            assert res["status"] == "confirmed"
        assert repeats == minimum, (n, repeats, minimum)
        repeats_by_round.append(repeats)
        close(api, eid, n)
    assert repeats_by_round[-1] > 0   # a round no search could seat without repeats: the programme's
    standings = api.get(f"/events/{eid}/standings").data
    assert standings["final"] is True and len(standings["standings"]) == 9

    # One draw of every game in every format it allows, in the same tournament.
    kinds = {"guandan": ("pair", 2), "tractor": ("pair", 2), "gouji": ({"kind": "team", "size": 3}, 3)}
    events_made = 0
    for game, (entry, size) in kinds.items():
        for fmt in ("swiss", "special_swiss", "round_robin", "knockout"):
            events_made += 1
            stage = {"format": fmt, **({"rounds": 3} if "swiss" in fmt else {})}
            cfg = {"name": f"{game} {fmt}", "game": game, "entry": entry, "capacity": 8, "fee": {"amount": 0},
                   "stages": [stage]}
            r = api.post(f"/tournaments/{tid}/events", cfg)
            assert r.status_code == 201, (game, fmt, r.data)
            for k, body in enumerate(people(4, size, f"{game}{fmt}")):
                # other players in each event: one phone entering 12 events in a few seconds is what the public
                # routes' limit per phone stops (services/limits.py)
                body["members"][0]["phone"] = f"137{events_made:04d}{k:04d}"
                reg = api.post(f"/events/{r.data['id']}/entries", body, token=None)
                assert reg.status_code == 201, reg.data
                assert api.post(f"/events/{r.data['id']}/entries/{reg.data['entry']['id']}/check-in").status_code == 200
            rnd = draw(api, r.data["id"])
            assert len(rnd["tables"]) == 2 and all(len(t["sides"]) == 2 for t in rnd["tables"]), (game, fmt, rnd)

    # Every confirmed result asked for a publish on the queue; the publisher takes them as Lambda's poller
    # hands them over (batches of up to 5) and writes the pages to the bucket.
    batches = 0
    while True:
        got = aws.sqs.receive_message(QueueUrl=aws.queue_url, MaxNumberOfMessages=5).get("Messages", [])
        if not got:
            break
        batches += 1
        answer = functions["PublishFromQueue"].invoke(artifact.sqs_event(got, aws.queue_arn))
        # a message per publish scope (an event's pages, the tournament-wide ones; issue 43): a batch publishes
        # each of its scopes once, however many of its messages ask for it
        scopes = {(b["tournament_id"], b.get("scope", "*")) for b in (json.loads(m["Body"]) for m in got)}
        assert answer == {"published": len(scopes)}, (answer, scopes)
        aws.sqs.delete_message_batch(QueueUrl=aws.queue_url, Entries=[
            {"Id": str(k), "ReceiptHandle": m["ReceiptHandle"]} for k, m in enumerate(got)])
    assert batches >= 3   # 15 confirmations
    keys = {o["Key"] for o in aws.s3.list_objects_v2(Bucket=aws.bucket).get("Contents", [])}
    assert any(k.endswith("feed.json") for k in keys) and any(k.endswith("standings.html") for k in keys), sorted(keys)[:20]
    obj = aws.s3.get_object(Bucket=aws.bucket, Key=f"t/{tid}/{eid}/standings.html")
    assert obj["ContentType"].startswith("text/html") and "选手8" in obj["Body"].read().decode()
    phones = [m["phone"] for p in people(9) for m in p["members"] if "phone" in m]
    for k in keys:   # public pages carry no phone numbers
        text = aws.s3.get_object(Bucket=aws.bucket, Key=k)["Body"].read().decode("utf-8", "replace")
        assert not any(p in text for p in phones), k

    # Publishing now from the API function itself.
    r = api.post(f"/tournaments/{tid}/publish")
    assert r.status_code == 200, r.data

    # The posters, drawn in the package's own CJK font (no fonts-noto-cjk on Lambda): written by the publisher
    # beside the pages, and answered by the API (a binary answer through API Gateway).
    from PIL import Image
    published = aws.s3.get_object(Bucket=aws.bucket, Key=f"t/{tid}/poster.png")
    assert published["ContentType"] == "image/png"
    poster = api.get(f"/tournaments/{tid}/poster.png", headers={"Accept": "image/png"})
    assert poster.status_code == 200 and poster.body[:8] == b"\x89PNG\r\n\x1a\n", poster.body[:200]
    image = Image.open(io.BytesIO(poster.body)).convert("RGB")
    assert image.size == (1080, 1440)
    title_band = image.crop((72, 110, 1008, 330)).getcolors(1 << 16)
    assert len(title_band) > 20   # the name is drawn (anti-aliased strokes), not a plain band

    # The desk's spreadsheet (openpyxl, a binary answer through API Gateway) and the table cards (segno's QR codes).
    xlsx = api.get(f"/events/{eid}/entries/export?format=xlsx",
                   headers={"Accept": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"})
    assert xlsx.status_code == 200 and xlsx.body[:2] == b"PK", xlsx.body[:200]
    from openpyxl import load_workbook
    sheet = load_workbook(io.BytesIO(xlsx.body)).active
    rows = list(sheet.iter_rows(values_only=True))
    assert len(rows) == 11 and {r[1] for r in rows[2:]} == {f"选手{i}" for i in range(9)}   # title, headers, players
    cards = api.get(f"/events/{eid}/rounds/1/cards")
    assert cards.status_code == 200 and b"<svg" in cards.body

    # Online payment: Stripe's API cannot be reached from here, so the registration that opens a Checkout
    # Session is made by the source tree's service against a fake Stripe; the session's expiry webhook is
    # then handled by the package (the Stripe SDK there checks the signature with the key from Secrets
    # Manager) and frees the place. A forged one is refused.
    paid = api.post(f"/tournaments/{tid}/events", {**ddz, "name": "付费二打一", "fee": {"amount": 3000}})
    assert paid.status_code == 201, paid.data
    online = bootstrap.Deps(repos=operator_repos.repos)
    online.providers["stripe"] = StripeGateway(aws.stripe_keys["secret_key"], None, http_client=FakeStripe())
    held = register(online, paid.data["id"], RegistrationIn.model_validate(people(1, 1, "网付")[0]), None).entry
    assert held.status == "pending_payment" and held.hold_expires_at
    payment_id = operator_repos.repos.entries.get(paid.data["id"], held.id).payment_id
    session = operator_repos.repos.payments.get(payment_id).session_id
    payload = json.dumps({"id": "evt_deploy_1", "object": "event", "type": "checkout.session.expired",
                          "data": {"object": {"id": session, "object": "checkout.session",
                                              "metadata": {"payment_id": payment_id}}}}).encode()
    forged = Api(gateway).post("/webhooks/stripe", raw=payload, token=None,
                               headers={"Stripe-Signature": sign_payload(payload, "whsec_someone_else")})
    assert forged.status_code == 400 and forged.data["code"] == "invalid_signature", forged.data
    hook = Api(gateway).post("/webhooks/stripe", raw=payload, token=None,
                             headers={"Stripe-Signature": sign_payload(payload, aws.stripe_keys["webhook_secret"])})
    assert hook.status_code == 200 and hook.data["status"] == "released", hook.data
    listed = api.get(f"/events/{paid.data['id']}/entries").data
    assert [e["status"] for e in listed["entries"]] == ["cancelled"], listed

    # The sweeper, on its schedule's event: no hold is left to release, and no tournament's contact data is due
    # for erasure yet (issue 41's retention runs in the same job).
    rule = next(e["Properties"] for e in template["Resources"]["SweepHolds"]["Properties"]["Events"].values())
    assert rule["Schedule"] == "rate(5 minutes)"
    swept = functions["SweepHolds"].invoke(artifact.scheduled_event("arn:aws:events:ap-east-1:123456789012:rule/sweep"))
    assert swept == {"released": 0, "confirmed": 0, "failed": 0,
                     "retention": {"tournaments": 0, "entries": 0, "registrations": 0, "messages": 0, "players": 0,
                                   "more": False}}, swept

    # The messages' worker, on its schedule's event, with the providers' configuration in the stack's secret
    # (pointed at the stand-ins): each pass sends what is due through the packaged Tencent Cloud SDK, fans the
    # draws out into each player's table, and marks failed what the provider refuses for good (the draw's
    # template is not approved in this configuration). Passes until nothing is due, as the schedule would.
    rule = next(e["Properties"] for e in template["Resources"]["DeliverMessages"]["Properties"]["Events"].values())
    assert rule["Schedule"] == "rate(1 minute)"
    totals = {"sent": 0, "retry": 0, "failed": 0}
    for _ in range(20):
        tried = functions["DeliverMessages"].invoke(
            artifact.scheduled_event("arn:aws:events:ap-east-1:123456789012:rule/msg"))
        assert isinstance(tried, dict) and "sent" in tried, tried
        for k in totals:
            totals[k] += tried[k]
        if not (tried["sent"] or tried["failed"] or tried["retry"]):
            break
    stored = operator_repos.repos.messages.for_tournament(tid)
    states = {(m.kind, m.state, m.error) for m in stored if m.channel == "sms"}
    # sent, and the provider's delivery reports pulled in the same passes: delivered
    assert ("registration_received", "delivered", None) in states and ("draw", "failed", "no_template") in states, states
    assert not any(m.kind == "draw" and m.state != "failed" for m in stored if m.channel == "sms")
    assert totals["failed"] >= 9 * 5 and totals["retry"] == 0, totals          # DDZ: nine players, five draws
    sms = message_standins.sms
    assert {s["kind"] for s in sms} >= {"registration_received", "confirm_result"} and "draw" not in {s["kind"] for s in sms}
    assert len(sms) == totals["sent"]                 # each message sent reached the provider once
    assert not any(m.params.get("link", "").find("#token=") >= 0 for m in stored if m.state == "sent")   # dropped
    FIGURES["messages worker (DeliverMessages)"] = (f"{totals['sent']} sent through the packaged SDK, "
                                                    f"{totals['failed']} marked failed, in the day's passes")

    # An organiser's password reset through the gateway nudges the worker (docs/messages.md): one message on the
    # messages queue, and the DeliverNudged function fed that batch sends the code — the schedule never runs here.
    # (each of the day's 17 draws nudged too — a draw's job is urgent —; the scheduled passes above did their work)
    waiting = aws.sqs.get_queue_attributes(QueueUrl=aws.messages_queue_url, AttributeNames=["ApproximateNumberOfMessages"])
    assert int(waiting["Attributes"]["ApproximateNumberOfMessages"]) >= 17, waiting
    aws.sqs.purge_queue(QueueUrl=aws.messages_queue_url)
    before = len(sms)
    assert Api(gateway).post("/auth/password-reset", {"login": "13800002121"}, token=None).status_code == 202
    nudges = aws.sqs.receive_message(QueueUrl=aws.messages_queue_url, MaxNumberOfMessages=10).get("Messages", [])
    assert len(nudges) == 1, nudges
    nudged = functions["DeliverNudged"].invoke(artifact.sqs_event(nudges, aws.messages_queue_arn))
    assert isinstance(nudged, dict) and "error" not in nudged, nudged
    assert [s["kind"] for s in sms[before:]] == ["organiser_code"], sms[before:]

    # Everything the day imported came from the package, the runtime's folder or the standard library.
    modules = {}
    for f in functions.values():
        modules.update(f.modules())
    assert set(LAZY) <= set(modules), sorted(set(LAZY) - set(modules))
    stdlib = sysconfig.get_paths()["stdlib"]
    for name, file in modules.items():
        if file and file != str(artifact.WORKER):   # lambda_worker.py: the runtime's loop, not the package
            assert file.startswith((str(package.dir), str(package.runtime), stdlib)), (name, file)
            assert "site-packages" not in file, (name, file)
    FIGURES["cold start (import of each handler from the package)"] = ", ".join(
        f"{name} {f.init_ms:.0f} ms" for name, f in functions.items()) + " (bar: 300 ms; bench/package.py measures it repeatedly)"
