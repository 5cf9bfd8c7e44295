"""The game registry, keyed by the game names used in event configs."""
from __future__ import annotations

from .base import Game
from .doudizhu import DouDizhu
from .gouji import Gouji
from .guandan import Guandan
from .tractor import Tractor

GAMES: dict[str, Game] = {g.name: g for g in (Guandan(), DouDizhu(), Gouji(), Tractor())}


def game(name: str) -> Game:
    return GAMES[name]
