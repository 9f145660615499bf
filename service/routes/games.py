"""``GET /games``: what games this build has, so the pages and clients need no list of
their own: names, titles, player counts, options, seat labels, the verbs with their
argument shapes, and where each game's rules page and table module are."""

from __future__ import annotations

from typing import Any

from litestar import get

from kartludo.engine.base import Game
from kartludo.engine.registry import all_games
from kartludo.service import schemas as s
from kartludo.service.errors import responses


def game_json(game: Game[Any]) -> s.GameInfo:
    """One game as ``GET /games`` lists it (public: no match, no card of anyone's)."""
    most = max(game.player_counts)
    return s.GameInfo(
        name=game.name,
        title=game.title,
        ruleset=game.ruleset,
        player_counts=list(game.player_counts),
        seats=list(game.seat_names[:most]),
        options={key: s.GameOption(opt.default, opt.help) for key, opt in game.options.items()},
        verbs=[cls.shape() for cls in game.verbs()],
        deck_size=len(game.full_deck),
        # the standings' column for the game's own total, and what it counts
        total=s.GameTotal(game.total_column[0], game.total_column[1]),
        rules_page=f"/ui/rules/{game.name}",
        table_module=f"/static/js/tables/{game.name}.js",
    )


@get("/games", sync_to_thread=False, responses=responses())
def get_games() -> list[s.GameInfo]:
    """Every game this server has, as the pages and any client discover them."""
    return [game_json(game) for game in all_games()]
