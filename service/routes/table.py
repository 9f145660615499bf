"""The routes a table client needs beyond the match API: a seat's moves (its legal
commands with their shapes and cautions, all judged from its own view) and the TD's
table facts (may a deal start now, does the match deal by itself)."""

from __future__ import annotations

from litestar import get, put
from litestar.concurrency import sync_to_thread
from litestar.params import JSONBody

from kartludo.app import watching
from kartludo.app.matches import autodeal
from kartludo.app.reading.presenters import moves_json
from kartludo.service import schemas as s
from kartludo.service.deps import MatchOf, Seat, Svc, Svcs, User, seat_only, td_only
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


def watch_out(mid: str, watch: watching.Watch) -> s.Watch:
    return s.Watch(mid, watch.text(), watch.moves, watch.seconds, watch.hands, watch.by)


@get("/matches/{match_id:str}/watch", sync_to_thread=True, responses=_ERRS)
def get_watch(services: Svcs, mid: MatchOf) -> s.Watch:
    """How watchers (no token) see the match: live, or delayed by moves or seconds
    (`delay`), and whether they see every hand in that delayed view (`hands`). Public."""
    return watch_out(mid, watching.current(services.store, mid))


@put("/matches/{match_id:str}/watch", guards=[td_only], responses=responses(401, 403, 404, 413, 415, 422))
async def set_watch(services: Svcs, user: User, mid: MatchOf, data: JSONBody[s.WatchSetting]) -> s.Watch:
    """Set how watchers see the match from now on (TD token): `delay` `2` (moves), `30s`
    (seconds) or `0` (live); `hands` (every hand, in the delayed view only: refused
    without a delay). A bad setting is a 422 naming it and writes nothing."""
    def run() -> s.Watch:
        moves, seconds = watching.parse_delay(data.delay)
        setting = watching.event(moves, seconds, data.hands, user.label or "td", data.reason)
        watch = watching.set_watch(services.store, mid, setting)
        services.live.notify(mid)
        return watch_out(mid, watch)

    return await sync_to_thread(run)


ROUTES = [get_moves, get_table, get_watch, set_watch]
