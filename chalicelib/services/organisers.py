"""Organiser accounts and their API tokens.

A token is stored as a pointer keyed by its hash (what authenticates) and a listed record under the
organiser (id, label, the token that issued it, when). Revoking a token revokes every token issued from it,
and theirs in turn, so a stolen token cannot leave heirs behind."""
from __future__ import annotations

from .. import errors
from ..bootstrap import Deps
from ..ids import hash_secret, new_id, new_token
from ..models import Organiser


def _token(deps: Deps, label: str, parent: str | None) -> tuple[dict, str]:
    secret = new_token("org")
    record = {"id": new_id(), "hash": hash_secret(secret), "label": label[:100], "parent": parent or "",
              "created_at": deps.clock().isoformat()}
    return record, secret


def create_organiser(deps: Deps, name: str) -> tuple[Organiser, str]:
    """Returns the organiser and its first token; the token is shown once and stored only hashed."""
    organiser = Organiser(id=new_id(), name=name, created_at=deps.clock())
    record, secret = _token(deps, "first token", None)
    deps.repos.organisers.create(organiser, record)
    return organiser, secret


def bearer(authorization: str | None) -> str:
    if not authorization:
        raise errors.Unauthorized()
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise errors.Unauthorized("Use 'Authorization: Bearer <organiser token>'.")
    return token.strip()


def authenticate_token(deps: Deps, authorization: str | None) -> tuple[Organiser, str]:
    """(organiser, token id) for a live bearer token."""
    found = deps.repos.organisers.by_token_hash(hash_secret(bearer(authorization)))
    if found is None:
        raise errors.Unauthorized("The organiser token is not valid or was revoked.")
    return found


def authenticate(deps: Deps, authorization: str | None) -> Organiser:
    return authenticate_token(deps, authorization)[0]


def issue_token(deps: Deps, organiser_id: str, parent_token_id: str | None, label: str = "") -> tuple[dict, str]:
    record, secret = _token(deps, label or "API token", parent_token_id)
    deps.repos.organisers.add_token(organiser_id, record)
    return record, secret


def list_tokens(deps: Deps, organiser_id: str, current: str | None = None) -> list[dict]:
    return [{**t, "current": t["id"] == current}
            for t in sorted(deps.repos.organisers.tokens(organiser_id), key=lambda t: t["created_at"])]


def revoke_token(deps: Deps, organiser_id: str, token_id: str) -> list[str]:
    """Revokes the token and every token issued from it (transitively); returns the ids revoked."""
    tokens = deps.repos.organisers.tokens(organiser_id)
    if not any(t["id"] == token_id for t in tokens):
        raise errors.NotFound("没有这个令牌 · No such token.")
    children: dict[str, list[str]] = {}
    for t in tokens:
        children.setdefault(t.get("parent", ""), []).append(t["id"])
    doomed, stack = [], [token_id]
    while stack:
        tid = stack.pop()
        doomed.append(tid)
        stack.extend(children.get(tid, []))
    deps.repos.organisers.revoke_tokens(organiser_id, doomed)
    return doomed
