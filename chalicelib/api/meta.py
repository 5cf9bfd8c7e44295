"""Service routes: health and the OpenAPI document."""
from __future__ import annotations

from chalice import Blueprint

from .routing import json_response, route

bp = Blueprint(__name__)


@route(bp, "/health", "GET", summary="Liveness", tag="meta")
def health(ctx):
    return {"ok": True}


@route(bp, "/openapi.json", "GET", summary="This API as OpenAPI 3.1", tag="meta")
def openapi(ctx):
    from .openapi import build_openapi
    return json_response(build_openapi())
