"""Service routes: health and the OpenAPI document."""
from __future__ import annotations

from chalice import Blueprint

from .routing import json_response, route

bp = Blueprint(__name__)


@route(bp, "/health", "GET", summary="Liveness and the store: 503 service_unavailable when it does not answer in 2 s",
       tag="meta", errors_=("service_unavailable",))
def health(ctx):
    from .. import errors
    from ..store.dynamo import ping
    if not ping(2.0):
        raise errors.ServiceUnavailable()
    return {"ok": True, "status": "ok", "db": "ok"}


@route(bp, "/openapi.json", "GET", summary="This API as OpenAPI 3.1", tag="meta")
def openapi(ctx):
    from .openapi import build_openapi
    return json_response(build_openapi())


@route(bp, "/glossary", "GET", summary="Every code in 中文 and English (formats, methods, points, statuses, options)",
       tag="meta", raw=True)
def glossary(ctx):
    import json

    from chalice import Response

    from ..glossary import as_json
    return Response(body=json.dumps(as_json(), ensure_ascii=False), status_code=200,
                    headers={"Content-Type": "application/json; charset=utf-8", "Cache-Control": "max-age=3600"})
