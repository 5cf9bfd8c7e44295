"""OpenAPI 3.1 built from the route registry and the pydantic models, so it cannot drift."""
from __future__ import annotations

import re
from functools import lru_cache

from pydantic.json_schema import models_json_schema

from .. import errors
from ..models import ErrorBody
from .routing import ID_MAX_LENGTH, PATH_INTEGERS, ROUTES

_AUTH_HEADERS = {"manage": "X-Manage-Token", "table": "X-Table-Code", "stripe": "Stripe-Signature"}
# Table routes take either the organiser's Bearer token or a side's X-Table-Code.


def _all_error_codes() -> dict[str, int]:
    out = {}
    stack = [errors.DomainError]
    while stack:
        cls = stack.pop()
        out[cls.code] = cls.status
        stack.extend(cls.__subclasses__())
    return out


@lru_cache(maxsize=1)
def build_openapi() -> dict:
    models = {m for r in ROUTES for m in (r.body, r.response) if m is not None} | {ErrorBody}
    models = sorted(models, key=lambda m: m.__name__)
    _, schema = models_json_schema([(m, "validation" if any(r.body is m for r in ROUTES) else "serialization")
                                    for m in models], ref_template="#/components/schemas/{model}")
    components = schema.get("$defs", {})
    codes = _all_error_codes()
    paths: dict = {}
    for r in ROUTES:
        op: dict = {"operationId": r.name, "summary": r.summary, "tags": [r.tag]}
        params = [{"name": p, "in": "path", "required": True,
                   "schema": {"type": "integer", "minimum": 1, "maximum": PATH_INTEGERS[p]} if p in PATH_INTEGERS
                   else {"type": "string", "minLength": 1, "maxLength": ID_MAX_LENGTH}}
                  for p in re.findall(r"{(\w+)}", r.path)]
        params += [{"name": name, "in": "query", "required": False, "schema": schema} for name, schema in r.query]
        for h in r.headers:
            params.append({"name": h, "in": "header", "required": False, "schema": {"type": "string"}})
        if r.auth in _AUTH_HEADERS:
            params.append({"name": _AUTH_HEADERS[r.auth], "in": "header", "required": r.auth != "table",
                           "schema": {"type": "string"}})
        if params:
            op["parameters"] = params
        if r.auth == "organiser":
            op["security"] = [{"organiserToken": []}]
        elif r.auth == "table":
            op["security"] = [{"organiserToken": []}, {}]
        if r.body is not None:
            op["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{r.body.__name__}"}}}}
        ok: dict = {"description": "OK"}
        if r.response is not None:
            ok["content"] = {"application/json": {"schema": {"$ref": f"#/components/schemas/{r.response.__name__}"}}}
        responses = {str(r.status): ok}
        err = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}}
        by_status: dict[int, list[str]] = {}
        # a body may be refused for its characters too (422 invalid_characters, control or direction characters)
        wanted = ["invalid_request", "invalid_characters"] if r.body else []
        if r.auth in ("organiser", "table", "manage"):
            wanted.append("unauthorized")
        if "{" in r.path:
            wanted.append("not_found")
        wanted += list(r.errors)
        for code in wanted:
            by_status.setdefault(codes.get(code, 400), []).append(code)
        for status, cs in sorted(by_status.items()):
            responses[str(status)] = {"description": " · ".join(cs), **err}
        op["responses"] = responses
        paths.setdefault(r.path, {})[r.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": "Card-game tournaments API", "version": "1.0.0",
                 "description": "Guandan, Dou Dizhu, Gouji and Tractor tournaments. Every 4xx body is "
                                "{code, message, details}. Error codes: "
                                + ", ".join(f"{c} ({s})" for c, s in sorted(codes.items()))},
        "paths": paths,
        "components": {"schemas": components,
                       "securitySchemes": {"organiserToken": {"type": "http", "scheme": "bearer"}}},
    }
