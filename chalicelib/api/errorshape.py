"""Every non-2xx answer carries {code, message} (api.md v1.1), also the ones Chalice writes itself
(405 wrong method, 415 body type: {"Code", "Message"}). Unknown paths never reach the app: API Gateway
answers them (gateway responses in infra/stack.py) and the local server does (scripts/wsgi.py)."""
from __future__ import annotations

import json

CHALICE_CODES = {
    "MethodNotAllowedError": ("method_not_allowed", "此路径不支持该请求方法 · This path does not take this method."),
    "UnsupportedMediaType": ("unsupported_media_type", "请求内容类型不受支持，请发送 JSON · Send the body as application/json."),
    "BadRequestError": ("invalid_request", "请求无效 · The request is not valid."),
    "BadRequest": ("invalid_request", "请求无效 · The request is not valid."),
    "NotFoundError": ("not_found", "找不到 · Not found."),
    "ForbiddenError": ("forbidden", "无权操作 · You may not do this."),
    "UnauthorizedError": ("unauthorized", "需要登录 · Sign-in required."),
    "TooManyRequestsError": ("rate_limited", "请求过于频繁，请稍候 · Too many requests; wait a moment."),
    "InternalServerError": ("internal_error", "服务器出错 · Something went wrong on our side."),
}
# Every route, the webhook included: a larger body is refused from its Content-Length, before it is read
# (api.md v1.2); the venue's server refuses chunked bodies past it as well.
MAX_REQUEST_BYTES = 1024 * 1024
NOT_FOUND_BODY = {"code": "not_found", "message": "没有这个地址 · No such path."}
PAYLOAD_TOO_LARGE_BODY = {"code": "payload_too_large", "message": "请求内容过大（上限 1 MiB） · The request body is over 1 MiB."}


def uniform_errors(event, get_response):
    """Chalice http middleware: rewrite Chalice's own error bodies into ours; every answer gets the security
    headers (chalicelib/security_headers.py)."""
    from ..security_headers import api_headers
    response = get_response(event)
    response.headers = {**api_headers(), **(response.headers or {})}
    if response.status_code >= 400 and isinstance(response.body, dict) and "Code" in response.body:
        code, message = CHALICE_CODES.get(response.body["Code"], ("invalid_request", "请求无效 · The request is not valid."))
        detail = response.body.get("Message")
        response.body = json.dumps({"code": code, "message": f"{message} ({detail})" if detail else message},
                                   ensure_ascii=False)
        response.headers = {**(response.headers or {}), "Content-Type": "application/json; charset=utf-8"}
    return response
