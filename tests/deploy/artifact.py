"""The deployment package as Lambda gets it: the zip `cdk deploy` would upload, unpacked, each function run in
its own clean interpreter (lambda_worker.py) with the function's handler and environment from the template,
and API Gateway's proxy events built for HTTP calls routed by the template's own API definition."""
from __future__ import annotations

import base64
import itertools
import json
import os
import re
import subprocess
import sys
import time
import uuid
import zipfile
from importlib import metadata
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

_SOURCE_HOSTS = itertools.count()

WORKER = Path(__file__).with_name("lambda_worker.py")
# What the python3.11 runtime itself provides beside the function's code (boto3 and what it imports).
RUNTIME_DISTRIBUTIONS = ("boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3")
LAMBDA_RUNTIMES = {"python3.11": (3, 11), "python3.12": (3, 12), "python3.13": (3, 13)}


def unpack(zip_path: Path, into: Path) -> dict:
    """Unzips the package; returns its sizes: total unzipped bytes and bytes per top-level name."""
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(into)
        infos = z.infolist()
    per_top: dict[str, int] = {}
    for i in infos:
        top = i.filename.split("/", 1)[0]
        per_top[top] = per_top.get(top, 0) + i.file_size
    return {"zipped": zip_path.stat().st_size, "unzipped": sum(i.file_size for i in infos), "per_top": per_top}


def distributions_in(package: Path) -> dict[str, dict]:
    """name → {version, size (bytes of its files), wheel tags} for every *.dist-info in the package."""
    out = {}
    for info in package.glob("*.dist-info"):
        meta = metadata.PathDistribution(info)
        size = 0
        for f in meta.files or []:
            p = package / f
            if p.is_file():
                size += p.stat().st_size
        wheel = (info / "WHEEL").read_text() if (info / "WHEEL").exists() else ""
        tags = re.findall(r"^Tag: (\S+)$", wheel, re.M)
        out[meta.metadata["Name"].lower().replace("_", "-")] = {"version": meta.version, "size": size, "tags": tags}
    return out


def runtime_dir(into: Path) -> Path:
    """A folder with only the runtime's own libraries, linked from this venv (Lambda's /var/runtime)."""
    into.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_DISTRIBUTIONS:
        dist = metadata.distribution(name)
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            src = Path(dist.locate_file(top))
            if src.exists() and not (into / top).exists():
                (into / top).symlink_to(src)
    return into


class LambdaFunction:
    """One function's execution environment: a `python -I -S -B` process, started once (the cold start).
    -B: Lambda's /var/task is read-only, so no bytecode is written beside the package's sources."""

    def __init__(self, name: str, handler: str, package: Path, runtime: Path, environment: dict, log: Path):
        self.name, self.handler = name, handler
        self._log = open(log, "w")
        self.proc = subprocess.Popen([sys.executable, "-I", "-S", "-B", str(WORKER), str(package), str(runtime), handler],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, text=True,
                                     env=environment, cwd=str(package))
        first = self._read()
        assert "init_error" not in first, f"{name}: importing {handler} failed:\n{first['init_error']}"
        self.init_ms, self.python, self.sys_path = first["init_ms"], tuple(first["python"]), first["path"]

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        assert line, f"{self.name} exited (code {self.proc.poll()}); its log: {self._log.name}"
        return json.loads(line)

    def _ask(self, request: dict) -> dict:
        self.proc.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def invoke(self, event: dict):
        answer = self._ask({"event": event})
        assert "error" not in answer, f"{self.name} raised:\n{answer['error']}"
        return answer["result"]

    def imports(self, names: list[str]) -> dict:
        return self._ask({"import": names})["failed"]

    def modules(self) -> dict[str, str | None]:
        return self._ask({"modules": True})["modules"]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._log.close()


class Response:
    def __init__(self, answer: dict):
        self.status_code = answer["statusCode"]
        self.headers = {k: v for k, v in (answer.get("headers") or {}).items()}
        for k, values in (answer.get("multiValueHeaders") or {}).items():
            self.headers.setdefault(k, ",".join(values))
        body = answer.get("body") or ""
        self.body = base64.b64decode(body) if answer.get("isBase64Encoded") else body.encode("utf-8")


class ApiGateway:
    """Turns HTTP calls into the REST API's proxy events (payload 1.0), routed by the template's own paths:
    the same interface as chalice.test.Client's `http`, so the tests' helpers drive the deployed API."""

    def __init__(self, api_definition: dict, function: LambdaFunction, stage: str = "api"):
        self.fn, self.stage = function, stage
        self.routes = []
        for resource, methods in api_definition["paths"].items():
            pattern = "^" + re.sub(r"\{([^}/]+)\}", r"(?P<\1>[^/]+)", resource) + "$"
            literal = len(re.sub(r"\{[^}]+\}", "", resource))
            self.routes.append((literal, resource, re.compile(pattern), {m.upper() for m in methods}))
        self.routes.sort(key=lambda r: -r[0])   # API Gateway prefers the most specific (literal) path
        self.http = self

    def event(self, method: str, path: str, headers: dict, body: bytes | None) -> dict:
        url = urlsplit(path)
        for _, resource, rx, methods in self.routes:   # noqa: B007 — the matched one is used after the loop
            m = rx.match(url.path)
            if m and (method in methods or "X-AMAZON-APIGATEWAY-ANY-METHOD" in methods):
                break
        else:
            raise AssertionError(f"API Gateway has no route for {method} {url.path}")
        query = parse_qsl(url.query, keep_blank_values=True)
        # Each request from its own address, as players' phones on mobile networks are: the public routes' limits
        # per address (services/limits.py) are tested in tests/api, not what this deployed day is about.
        source_ip = f"203.0.113.{next(_SOURCE_HOSTS) % 254 + 1}"
        headers = {"Host": "abcdef1234.execute-api.ap-east-1.amazonaws.com", "X-Forwarded-For": source_ip,
                   "X-Forwarded-Proto": "https", "User-Agent": "Mozilla/5.0 (Linux; Android 14) Mobile", **headers}
        text = body.decode("utf-8") if body is not None else None
        now = time.time()
        return {
            "resource": resource, "path": url.path, "httpMethod": method,
            "headers": headers, "multiValueHeaders": {k: [v] for k, v in headers.items()},
            "queryStringParameters": dict(query) or None,
            "multiValueQueryStringParameters": ({k: [v for kk, v in query if kk == k] for k, _ in query} or None),
            "pathParameters": m.groupdict() or None, "stageVariables": None,
            "requestContext": {
                "resourceId": "abc123", "resourcePath": resource, "httpMethod": method, "path": f"/{self.stage}{url.path}",
                "accountId": "123456789012", "protocol": "HTTP/1.1", "stage": self.stage, "apiId": "abcdef1234",
                "domainName": headers["Host"], "domainPrefix": "abcdef1234", "requestId": str(uuid.uuid4()),
                "extendedRequestId": str(uuid.uuid4()), "requestTimeEpoch": int(now * 1000),
                "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
                "identity": {"sourceIp": source_ip, "userAgent": headers["User-Agent"], "accessKey": None,
                             "accountId": None, "caller": None, "user": None, "userArn": None, "cognitoIdentityId": None},
            },
            "body": text, "isBase64Encoded": False,
        }

    def request(self, method: str, path: str, headers: dict | None = None, body: bytes | None = None) -> Response:
        return Response(self.fn.invoke(self.event(method, path, dict(headers or {}), body)))

    def get(self, path, headers=None, body=None):
        return self.request("GET", path, headers, body)

    def post(self, path, headers=None, body=None):
        return self.request("POST", path, headers, body)

    def put(self, path, headers=None, body=None):
        return self.request("PUT", path, headers, body)

    def patch(self, path, headers=None, body=None):
        return self.request("PATCH", path, headers, body)

    def delete(self, path, headers=None, body=None):
        return self.request("DELETE", path, headers, body)


def sqs_event(messages: list[dict], queue_arn: str) -> dict:
    """The batch Lambda's SQS poller hands the function, from messages received off the queue."""
    return {"Records": [{
        "messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
        "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": str(int(time.time() * 1000)),
                       "SenderId": "AROAEXAMPLE", "ApproximateFirstReceiveTimestamp": str(int(time.time() * 1000))},
        "messageAttributes": {}, "md5OfBody": m["MD5OfBody"], "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn, "awsRegion": queue_arn.split(":")[3]} for m in messages]}


def scheduled_event(rule_arn: str) -> dict:
    """What EventBridge sends on a schedule."""
    return {"version": "0", "id": str(uuid.uuid4()), "detail-type": "Scheduled Event", "source": "aws.events",
            "account": rule_arn.split(":")[4], "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "region": rule_arn.split(":")[3], "resources": [rule_arn], "detail": {}}


def base_environment(extra: dict) -> dict:
    """The variables Lambda itself sets, then the function's own; nothing of this test process's."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "TZ": ":UTC",
           "AWS_REGION": "ap-east-1", "AWS_DEFAULT_REGION": "ap-east-1", "AWS_ACCESS_KEY_ID": "deploytest",
           "AWS_SECRET_ACCESS_KEY": "deploytest", "AWS_SESSION_TOKEN": "deploytest",
           "AWS_EXECUTION_ENV": "AWS_Lambda_python3.11", "LAMBDA_RUNTIME_DIR": "/var/runtime"}
    env.update(extra)
    return env
