"""The routes a table client needs beyond the match API: a seat's moves (its legal
commands with their shapes and cautions, all judged from its own view) and the TD's
table facts (may a deal start now, does the match deal by itself)."""

from __future__ import annotations

from litestar import get

from kartludo.app.matches import autodeal
from kartludo.app.reading.presenters import moves_json
from kartludo.service import schemas as s
from kartludo.service.deps import MatchOf, Seat, Svc, Svcs, seat_only, td_only
from kartludo.service.errors import responses

_ERRS = responses(401, 403, 404, text={404: "unknown match"})


@get("/matches/{match_id:str}/moves", sync_to_thread=True, guards=[seat_only], responses=_ERRS)
def get_moves(services: Svcs, svc: Svc, mid: MatchOf, seat: Seat) -> s.Moves:
    """The token's seat's moves now: `shapes` (each legal verb's shape: which of the
    seat's cards and how many, a number range, a choice, or, where none fits, the
    commands themselves: together exactly the seat's legal commands, so a client never
    needs the full list, which `GET .../legal` gives; an exchange is thousands) and
    `cautions` (command -> what to confirm first: it ends the deal, or is a foul by what
    the seat can see). A seat the game is not waiting for has none."""
    with services.locked(mid):
        return s.Moves(**moves_json(svc.load(mid), seat, expanded=False))


@get("/matches/{match_id:str}/table", sync_to_thread=True, guards=[td_only], responses=_ERRS)
def get_table(services: Svcs, svc: Svc, mid: MatchOf) -> s.TableFacts:
    """The TD's facts about a match's table (TD token): `can_deal` (a deal may start
    now: the TD page's Deal next), `auto_deal` (the match deals by itself when a deal
    ends), `closed` (by its series deadline), `status` and `deal`."""
    with services.locked(mid):
        match = svc.load(mid)
        game = match.game
        return s.TableFacts(match=mid, status=match.status, deal=game.deal_number(match.state),
                            can_deal=not match.closed and game.can_deal(match.state),
                            auto_deal=autodeal.auto_deal(services.store, mid), deal_due=autodeal.due(svc, mid),
                            closed=match.closed)


ROUTES = [get_moves, get_table]
