"""Public routes that need no sign-in."""
from __future__ import annotations

from chalice import Blueprint

from ..models import PublicTournament
from ..services import tournaments as svc
from .routing import route

bp = Blueprint(__name__)


@route(bp, "/public/tournaments/{tid}", "GET", summary="What the public may see of a tournament",
       response=PublicTournament, tag="public")
def public_tournament(ctx, tid):
    return svc.public_tournament(ctx.deps, tid)
