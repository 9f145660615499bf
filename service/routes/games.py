"""``GET /games``: what games this build has, so the pages and clients need no list of
their own: names, titles, player counts, options, seat labels, the verbs with their
argument shapes, and where each game's rules page and table module are."""

from __future__ import annotations

from typing import Any

from litestar import get

from kartludo.engine.base import Game
from kartludo.engine.registry import all_games


def game_json(game: Game[Any]) -> dict[str, Any]:
    """One game as ``GET /games`` lists it (public: no match, no card of anyone's)."""
    most = max(game.player_counts)
    return {
        "name": game.name,
        "title": game.title,
        "ruleset": game.ruleset,
        "player_counts": list(game.player_counts),
        "seats": list(game.seat_labels(most)),
        "options": {key: {"default": opt.default, "help": opt.help} for key, opt in game.options.items()},
        "verbs": [cls.shape() for cls in game.verbs()],
        "deck_size": len(game.full_deck),
        # the standings' column for the game's own total, and what it counts
        "total": {"column": game.total_column[0], "legend": game.total_column[1]},
        "rules_page": f"/ui/rules/{game.name}",
        "table_module": f"/static/js/tables/{game.name}.js",
    }


@get("/games", sync_to_thread=False)
def get_games() -> list[dict[str, Any]]:
    """Every game this server has, as the pages and any client discover them."""
    return [game_json(game) for game in all_games()]
