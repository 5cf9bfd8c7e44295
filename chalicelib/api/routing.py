"""Route registration for every blueprint: body parsing, auth, error mapping, OpenAPI metadata.

Views receive a `Ctx` and path parameters, call one service function and return a model.
Domain errors become JSON error bodies here and nowhere else.
"""
from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

from chalice import CORSConfig, Response
from pydantic import BaseModel, ValidationError

from .. import errors
from ..bootstrap import deps
from ..config import get_settings
from ..services.validation import bad_characters, validation_details
from .errorshape import MAX_REQUEST_BYTES, PAYLOAD_TOO_LARGE_BODY

log = logging.getLogger("cardgames.api")

CORS = CORSConfig(
    allow_origin="*",
    allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "X-Manage-Token", "X-Table-Code", "If-None-Match",
                   "X-Player-Token"],
    max_age=600,
    expose_headers=["ETag", "Retry-After"],   # the table phone's outbox waits as long as a 503/429 asks
)
# Accept any common body type so a wrong one gets our own 415 (or parses as JSON), not Chalice's.
CONTENT_TYPES = ["application/json", "text/plain", "application/x-www-form-urlencoded",
                 "multipart/form-data", "application/octet-stream", "application/xml", "text/xml", "text/csv"]


@dataclass
class Endpoint:
    path: str
    method: str
    name: str
    summary: str
    auth: str                      # "public" | "organiser" | "manage" | "table" | "stripe"
    body: type[BaseModel] | None
    response: type[BaseModel] | None
    status: int
    errors: tuple[str, ...]
    headers: tuple[str, ...] = ()
    tag: str = ""
    raw: bool = False              # returns a non-JSON body (file, HTML)
    query: tuple[tuple[str, dict], ...] = ()   # (name, JSON schema) of each query parameter
    roles: tuple[str, ...] = ()    # staff roles let in besides a director (organiser routes)
    owner_only: bool = False       # only the organiser itself (tournaments, staff, tokens)
    scope: Callable | None = None  # (deps, params) → tournament id, for paths that name none
    max_body: int | None = None    # a larger body limit than the settings' (a spreadsheet upload)


# The roles of each resource's routes, declared once (a director may do everything in its tournament).
DEFAULT_ROLES = {"desk": ("desk",), "rounds": ("scorer",), "referee": ("scorer",)}


# Path parameters: round and table numbers are integers; every other one is an id (ULIDs are 26 characters).
PATH_INTEGERS = {"n": 9_999, "t": 9_999}
ID_MAX_LENGTH = 64


def check_path(params: dict) -> dict:
    """An id longer than any key, or a number that is not one, names nothing: 404 before any lookup."""
    out = {}
    for name, value in params.items():
        if name in PATH_INTEGERS:
            if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 5
                    and 1 <= int(value) <= PATH_INTEGERS[name]):
                raise errors.NotFound(f"没有第 {value[:12]} 轮/桌 · No round or table {value[:12]!r}.")
        elif not isinstance(value, str) or not 0 < len(value) <= ID_MAX_LENGTH or not value.isprintable():
            raise errors.NotFound("找不到该记录 · No such record (the id is not valid).")
        out[name] = value
    return out


ROUTES: list[Endpoint] = []


@dataclass
class Ctx:
    request: Any
    deps: Any
    body: Any = None
    organiser: Any = None
    token_id: str | None = None
    principal: Any = None

    def header(self, name: str) -> str | None:
        value = self.request.headers.get(name.lower()) if self.request.headers else None
        return value.strip() if isinstance(value, str) else value

    @property
    def client(self) -> str:
        """The client's address, for limits: the peer API Gateway (or the venue's server) saw. Behind a proxy
        we run (TRUSTED_PROXY_HOPS), the address that proxy appended to X-Forwarded-For — never a hop the
        client could have written itself."""
        hops = get_settings().trusted_proxy_hops
        forwarded = [h.strip() for h in (self.header("x-forwarded-for") or "").split(",") if h.strip()]
        if hops and len(forwarded) >= hops:
            return forwarded[-hops]
        return ((self.request.context or {}).get("identity") or {}).get("sourceIp") or "unknown"

    def query(self, name: str, default: str | None = None) -> str | None:
        params = self.request.query_params or {}
        return params.get(name, default)


def json_response(payload: Any, status: int = 200, headers: dict | None = None) -> Response:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)
    return Response(body=text, status_code=status,
                    headers={"Content-Type": "application/json; charset=utf-8", **(headers or {})})


def error_response(exc: errors.DomainError) -> Response:
    retry_after = getattr(exc, "retry_after", None)
    return json_response(exc.to_body(), exc.status, {"Retry-After": str(retry_after)} if retry_after else None)


def _declared_length(request) -> int:
    try:
        return int((request.headers or {}).get("content-length") or 0)
    except ValueError:
        return 0


_logged_tracebacks: set[str] = set()


def _traceback_once(exc: Exception) -> str:
    """The stack of the first failure of each kind and place only (a repeated failure is one line each), without
    the exception's message: messages may quote personal data (a name in an item), the stack shows only code."""
    import traceback
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{type(exc).__name__}@{frames[-1].filename}:{frames[-1].lineno}" if frames else type(exc).__name__
    if where in _logged_tracebacks or len(_logged_tracebacks) > 1000:
        return ""
    _logged_tracebacks.add(where)
    return "\n" + "".join(traceback.format_list(frames))


def parse_body(request, model: type[BaseModel], max_bytes: int | None = None) -> BaseModel:
    raw = request.raw_body or b""
    limit = max_bytes or get_settings().max_body_bytes
    if len(raw) > limit:
        raise errors.PayloadTooLarge(f"The body is {len(raw)} bytes; the limit is {limit}.")
    content_type = (request.headers.get("content-type") or "application/json").split(";")[0].strip().lower()
    if raw.strip() and content_type not in ("application/json", "text/plain"):
        raise errors.UnsupportedMediaType()
    try:
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except RecursionError:
        raise errors.InvalidRequest("请求内容嵌套过深 · The body is nested too deeply.") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise errors.InvalidRequest(f"请求内容不是有效的 JSON · The body is not valid JSON: {exc}") from None
    bad = bad_characters(data)
    if bad:
        from ..services.validation import summary
        raise errors.InvalidCharacters(summary(bad), bad)
    try:
        # Validated as JSON in strict mode: no `true` for a number, no 0 for a date; pydantic's own parser
        # also bounds the nesting depth.
        return model.model_validate_json(json.dumps(_without_nulls(data)), strict=True)
    except ValidationError as exc:
        if any(e["type"] == "json_invalid" for e in exc.errors()):
            raise errors.InvalidRequest("请求内容不是有效的 JSON · The body is not valid JSON: "
                                        f"{exc.errors()[0]['msg']}") from None
        from ..services.validation import summary
        details = validation_details(exc)
        raise errors.InvalidRequest(summary(details), details) from None


def _without_nulls(value: Any) -> Any:
    """`null` means "not given" (api.md v1.1): such keys are dropped, so the field takes its default."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _serialise(result: Any) -> Any:
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json")
    if isinstance(result, dict):
        return {k: _serialise(v) for k, v in result.items()}
    if isinstance(result, (list, tuple)):
        return [_serialise(v) for v in result]
    return result


def route(bp, path: str, method: str, *, summary: str, auth: str = "public",
          body: type[BaseModel] | None = None, response: type[BaseModel] | None = None, status: int = 200,
          errors_: tuple[str, ...] = (), headers: tuple[str, ...] = (), tag: str = "", raw: bool = False,
          query: tuple[tuple[str, dict], ...] = (), roles: tuple[str, ...] | None = None, owner_only: bool = False,
          scope: Callable | None = None, max_body: int | None = None) -> Callable:
    def decorate(fn: Callable) -> Callable:
        allowed = roles if roles is not None else DEFAULT_ROLES.get(tag, ())
        endpoint = Endpoint(path=path, method=method, name=fn.__name__, summary=summary, auth=auth,
                            body=body, response=response, status=status, errors=errors_,
                            headers=headers, tag=tag or bp.__class__.__name__, raw=raw, query=query,
                            roles=tuple(allowed), owner_only=owner_only, scope=scope, max_body=max_body)
        ROUTES.append(endpoint)

        @functools.wraps(fn)
        def view(**params):
            request = bp.current_request
            try:
                if _declared_length(request) > MAX_REQUEST_BYTES:
                    raise errors.PayloadTooLarge(PAYLOAD_TOO_LARGE_BODY["message"])
                params = check_path(params)
                d = deps()
                ctx = Ctx(request=request, deps=d)
                if auth == "organiser":
                    # Who acts, then tenancy and role: one check for every route, before the body is read
                    # (someone else's tournament answers 404 whatever was sent).
                    from ..services import principals
                    principal = principals.authenticate(d, request.headers.get("authorization"))
                    if endpoint.owner_only and principal.kind != "organiser":
                        raise errors.Forbidden("只有组委会可以这样做 · Only the organiser can do this.")
                    tid = endpoint.scope(d, params) if endpoint.scope else None
                    principals.authorize(d, principal, endpoint.roles, params, tid)
                    ctx.principal, ctx.organiser, ctx.token_id = principal, principal.acting(), principal.token_id
                elif auth == "table" and request.headers.get("authorization"):
                    # signed in at a table page: the same tenancy and role check (a table code is checked in the view)
                    from ..services import principals
                    ctx.principal = principals.authenticate(d, request.headers.get("authorization"))
                    principals.authorize(d, ctx.principal, ("scorer",), params)
                if body is not None:
                    ctx.body = parse_body(request, body, endpoint.max_body)
                result = fn(ctx, **params)
                if isinstance(result, Response):
                    return result
                return json_response(_serialise(result), status)
            except errors.DomainError as exc:
                if exc.status >= 500:   # one line, no traceback: an outage must not flood the log
                    log.error("%s %s → %s %s", method, path, exc.status, exc.code)
                return error_response(exc)
            except Exception as exc:  # noqa: BLE001 — never leak a stack trace; log it without request bodies (personal data)
                from ..store.dynamo import store_down
                if store_down(exc):
                    log.error("%s %s → 503 service_unavailable (%s)", method, path, type(exc).__name__)
                    return error_response(errors.ServiceUnavailable())
                log.error("%s %s → 500 internal_error (%s)%s", method, path, type(exc).__name__, _traceback_once(exc))
                return json_response({"code": "internal_error", "message": "Something went wrong on our side."}, 500)

        bp.route(path, methods=[method], cors=CORS, content_types=CONTENT_TYPES)(view)
        return fn

    return decorate
