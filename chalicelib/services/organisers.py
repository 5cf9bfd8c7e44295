"""Organiser accounts and their bearer tokens."""
from __future__ import annotations

from .. import errors
from ..bootstrap import Deps
from ..ids import hash_secret, new_id, new_token
from ..models import Organiser


def create_organiser(deps: Deps, name: str) -> tuple[Organiser, str]:
    """Returns the organiser and its token; the token is shown once and stored only hashed."""
    organiser = Organiser(id=new_id(), name=name, created_at=deps.clock())
    token = new_token("org")
    deps.repos.organisers.create(organiser, hash_secret(token))
    return organiser, token


def authenticate(deps: Deps, authorization: str | None) -> Organiser:
    if not authorization:
        raise errors.Unauthorized()
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise errors.Unauthorized("Use 'Authorization: Bearer <organiser token>'.")
    organiser = deps.repos.organisers.by_token_hash(hash_secret(token.strip()))
    if organiser is None:
        raise errors.Unauthorized("The organiser token is not valid or was revoked.")
    return organiser


def issue_token(deps: Deps, organiser_id: str) -> str:
    token = new_token("org")
    deps.repos.organisers.add_token(organiser_id, hash_secret(token))
    return token


def revoke_token(deps: Deps, token: str) -> None:
    deps.repos.organisers.revoke_token(hash_secret(token))
