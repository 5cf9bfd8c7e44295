"""The Chalice app as a WSGI application, through Chalice's own local API Gateway emulation
(chalice.local.LocalGateway: routing, CORS pre-flight, binary bodies), so any WSGI server can serve it
(scripts/api_server.py: waitress) and in-process tools can call it (the schemathesis fuzz).

Unknown paths get our 404 {code, message} body, as API Gateway's gateway responses give on AWS."""
from __future__ import annotations

import base64
import json
import threading
from urllib.parse import quote, unquote

from chalicelib.api.errorshape import MAX_REQUEST_BYTES, NOT_FOUND_BODY, PAYLOAD_TOO_LARGE_BODY

_peer = threading.local()


class _DecodedPathParameters:
    """The app as LocalGateway sees it, with path parameters percent-decoded before the view runs, and the
    client's real address as the source (LocalGateway writes 127.0.0.1 for everyone, so one phone's wrong
    passwords would count against the whole hall)."""

    def __init__(self, app):
        self._app = app

    def __getattr__(self, name):
        return getattr(self._app, name)

    def __call__(self, event, context):
        params = event.get("pathParameters")
        if params:
            event["pathParameters"] = {k: unquote(v) for k, v in params.items()}
        address = getattr(_peer, "address", None)
        if address:
            event.setdefault("requestContext", {}).setdefault("identity", {})["sourceIp"] = address
        return self._app(event, context)


def _json(start_response, status: str, body: dict):
    data = json.dumps(body, ensure_ascii=False).encode()
    start_response(status, [("Content-Type", "application/json; charset=utf-8"), ("Content-Length", str(len(data))),
                            ("Access-Control-Allow-Origin", "*")])
    return [data]


def wsgi_app(chalice_app, stage: str = "local"):
    from chalice.config import Config
    from chalice.local import LocalGateway, LocalGatewayException


    gateway = LocalGateway(_DecodedPathParameters(chalice_app),
                           Config.create(chalice_stage=stage, app_name=chalice_app.app_name, lambda_timeout=60))

    def application(environ, start_response):
        method = environ["REQUEST_METHOD"].upper()
        # Route on the path as sent (still percent-encoded, so '#', '?' or '%2F' inside an id stay inside
        # it); the parameters are decoded afterwards, as API Gateway does.
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
        if raw:
            path = raw.split("?", 1)[0]
        else:
            path = quote((environ.get("PATH_INFO") or "/").encode("latin-1"), safe="/")
        query = environ.get("QUERY_STRING", "")
        headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
        if environ.get("CONTENT_TYPE"):
            headers["content-type"] = environ["CONTENT_TYPE"]
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_REQUEST_BYTES:
            return _json(start_response, "413 Payload Too Large", PAYLOAD_TOO_LARGE_BODY)
        body = environ["wsgi.input"].read(length) if length > 0 else None
        _peer.address = environ.get("REMOTE_ADDR")
        try:
            response = gateway.handle_request(method=method, path=path + ("?" + query if query else ""),
                                              headers=headers, body=body)
        except LocalGatewayException:
            return _json(start_response, "404 Not Found", NOT_FOUND_BODY)
        finally:
            _peer.address = None
        status = response["statusCode"]
        out = response.get("body")
        if out is None:
            data = b""
        elif response.get("isBase64Encoded"):
            data = base64.b64decode(out)
        else:
            data = out.encode("utf-8") if isinstance(out, str) else out
        pairs = []
        for k, v in (response.get("headers") or {}).items():
            if k.lower() != "content-length":
                pairs.append((k, str(v)))
        for k, values in (response.get("multiValueHeaders") or {}).items():
            pairs.extend((k, str(v)) for v in values)
        if not any(k.lower() == "content-type" for k, _ in pairs) and data:
            pairs.append(("Content-Type", "application/json"))
        pairs.append(("Content-Length", str(len(data))))
        start_response(f"{status} {_REASONS.get(status, 'Status')}", pairs)
        return [data] if method != "HEAD" else []

    return application


_REASONS = {200: "OK", 201: "Created", 204: "No Content", 304: "Not Modified", 400: "Bad Request",
            401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict",
            413: "Payload Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Entity",
            429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
