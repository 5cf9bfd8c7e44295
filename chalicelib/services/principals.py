"""Who is acting (design.md v1.1): the organiser (a signed-in session or an API token) or a staff member bound
to one tournament with one role. One check decides every route: `authorize`, called by the route layer with
what the route declares.

Roles (api.md v1.1): `director` everything in its tournament; `desk` entries, payments, check-in, exports;
`scorer` rounds, results, forfeits, arrivals, disputes. Only the organiser creates tournaments and staff.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..glossary import ROLE_NAMES, display_who  # noqa: F401 — display_who: publishing still asks for it here
from ..ids import hash_secret, new_id, new_token
from ..models import Organiser

ROLES = ("director", "desk", "scorer")


@dataclass
class Principal:
    kind: str                      # "organiser" | "staff"
    organiser: Organiser           # the account that owns what is reached
    token_id: str | None = None
    role: str = "owner"
    tournament_id: str | None = None
    staff_id: str | None = None
    name: str = ""

    @property
    def who(self) -> str:
        """How the audit log names the one who acted."""
        if self.kind == "staff":
            return f"staff:{self.staff_id}:{self.name}:{self.role}"
        return f"organiser:{self.organiser.id}"

    def acting(self) -> Organiser:
        """The organiser services see, carrying who acts (for the audit log)."""
        return self.organiser if self.kind == "organiser" else self.organiser.model_copy(update={"acting_as": self.who})


def who_of(organiser: Organiser) -> str:
    return getattr(organiser, "acting_as", None) or f"organiser:{organiser.id}"


# --------------------------------------------------------------------------- authentication

def bearer(authorization: str | None) -> str:
    if not authorization:
        raise errors.Unauthorized()
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise errors.Unauthorized("Use 'Authorization: Bearer <organiser token>'.")
    return token.strip()


def authenticate(deps: Deps, authorization: str | None) -> Principal:
    token = bearer(authorization)
    digest = hash_secret(token)
    if token.startswith("stf_"):
        member = deps.repos.staff.by_token_hash(digest)
        if member is None:
            raise errors.Unauthorized("这个工作人员链接已失效 · This staff sign-in was removed or is not valid.")
        tournament = deps.repos.tournaments.get(member["tournament_id"])
        owner = deps.repos.organisers.get(tournament.organiser_id) if tournament else None
        if owner is None or owner.revoked:
            raise errors.Unauthorized()
        return Principal("staff", owner, None, member["role"], member["tournament_id"], member["id"], member["name"])
    found = deps.repos.organisers.by_token_hash(digest)
    if found is None:
        raise errors.Unauthorized("The organiser token is not valid or was revoked.")
    organiser, token_id, expires = found
    if expires and expires < deps.clock().timestamp():
        raise errors.Unauthorized("登录已过期，请重新登录 · The session has expired: sign in again.")
    return Principal("organiser", organiser, token_id)


# --------------------------------------------------------------------------- authorization

def tournament_of_path(deps: Deps, params: dict) -> str | None:
    """The tournament a route's path reaches (None: the path names none)."""
    if "tid" in params:
        return params["tid"]
    if "eid" in params:
        event = deps.repos.events.get(params["eid"])
        return event.tournament_id if event else ""
    return None


def authorize(deps: Deps, principal: Principal, roles: tuple[str, ...], params: dict,
              tournament_id: str | None = None) -> None:
    """Tenancy and role, for every route alike. Someone else's tournament answers 404 (ids do not leak); a
    route outside a staff member's role answers 403."""
    from .tournaments import own_event, own_tournament
    if principal.kind == "organiser":
        if "eid" in params:
            own_event(deps, principal.organiser, params["eid"])
        elif "tid" in params:
            own_tournament(deps, principal.organiser, params["tid"])
        return
    tid = tournament_id if tournament_id is not None else tournament_of_path(deps, params)
    if tid is not None and tid != principal.tournament_id:
        raise errors.NotFound("not found")
    if principal.role != "director" and principal.role not in roles:
        raise errors.Forbidden(f"{ROLE_NAMES[principal.role][0]}无权进行此操作 · A {principal.role} may not do this.")


# --------------------------------------------------------------------------- staff

def add_staff(deps: Deps, tid: str, name: str, role: str, created_by: str | None = None) -> tuple[dict, str]:
    """`created_by`: the organiser token or session that adds the member; revoking it ends this link too."""
    token = new_token("stf")
    member = {"id": new_id(), "tournament_id": tid, "name": name, "role": role,
              "created_at": deps.clock().isoformat(), "created_by": created_by or ""}
    deps.repos.staff.create(member, hash_secret(token))
    return member, token


def sign_in_link(token: str) -> str:
    """Opens the console on a phone already signed in (the token travels in the fragment: never sent to a
    server or kept in its logs)."""
    from .links import site_url
    return f"{site_url()}/organiser.html#staff={token}"
