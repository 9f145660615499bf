"""What a reader may see of a match: the one policy every read path asks (the CLI, the
HTTP routes, the live streams, replays, the hearing room, command responses).

The game's ``redact``/``view`` hide cards from a seat or the public. On top of that:

- While a deal runs, its ``DealStarted`` shows the commitment to the deck but neither
  the deck (the game hides it) nor the salt. Once the deal has ended its events are
  public, every hand shown (``ALL``), so anyone can check the commitment.
- The match's seed and the seeded shuffles' keys (``"SEED:DEAL"``) derive every later
  deal: while the match runs only a TD's view (every hand, with a TD's authority)
  shows them, not even the public view of an ended deal. Once the match has ended
  (finished or closed) they are public.
- A duplicate board's match (``Match.withheld``) keeps its deal hidden as if it ran until
  every table has played the board: its deck and the other hands stay unseen by its
  seats, and nobody but a TD and its own seats reads it at all (``app.duplicate``).
- An event's chain hash is SHA-256 over the previous hash, the row's header and its
  payload, so a reader could test guesses of a hidden card against it (and, through
  the chain, against every later hash). A reader gets an event's hash only when that
  event and every one before it is shown to them exactly as stored: then the hash
  commits to nothing they cannot see. This is decided here and nowhere else:
  ``Exactness`` keeps, as a match is folded, how far each reader sees it exactly, and
  ``hashed`` gives each event shown its hash or None.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from kartludo.app.errors import InvalidInput, NotAllowed
from kartludo.app.matches.fairness import is_seed_key
from kartludo.engine.base import ALL, Game, Viewer
from kartludo.engine.match import MATCH_FACTS, Match
from kartludo.events.base import Event
from kartludo.events.match import SEEDED_SHUFFLE, DealStarted, MatchCreated
from kartludo.store import Recorded


def match_over(match: Match) -> bool:
    """The match has ended (finished, or closed by its series): its seed is public. A
    duplicate board not yet played at every table (``withheld``) has not, to a reader."""
    return not match.withheld and (match.closed or match.game.is_finished(match.state))


def deal_over(match: Match) -> bool:
    """The match's latest deal has ended (or none runs): its events are public. A
    withheld duplicate board's deal runs on, to a reader, until every table has played it."""
    return not match.withheld and (match.closed or match.game.can_deal(match.state)
                                   or match.game.is_finished(match.state))


def sees_secrets(viewer: Viewer, td: bool, over: bool) -> bool:
    """Whether a reader sees the seed and the shuffle keys: a TD's every-hand view,
    or anyone once the match has ended."""
    return over or (td and viewer == ALL)


def shown_as(game: Game[Any], before: Any, event: Event, deal: int | None, current: int | None, last_ended: bool,
             viewer: Viewer, *, secrets: bool) -> tuple[Event, Viewer]:
    """``event`` (of deal ``deal``; None: before any deal) as ``viewer`` may see it now,
    ``current`` being the stream's newest deal and ``last_ended`` whether it has ended:
    an ended deal's events are public with every hand (``ALL``); a running one's are
    shown in the reader's own view. Returns the event shown and the view it is in."""
    ended = deal is not None and (deal != current or last_ended)
    seen = ALL if ended else viewer
    return redact(game, before, event, seen, secrets=secrets), seen


def redact(game: Game[Any], before: Any, event: Event, viewer: Viewer, *, secrets: bool) -> Event:
    """``event`` as ``viewer`` may see it; ``before`` is the match state before it (None
    only for ``MatchCreated``); ``secrets``: the reader may see the seed."""
    if isinstance(event, MatchCreated):
        return event if secrets or event.seed is None else msgspec.structs.replace(event, seed=None)
    if isinstance(event, MATCH_FACTS):  # the match's own facts hold no card
        return event
    shown = game.redact(before, event, viewer)
    if isinstance(shown, DealStarted):
        if viewer != ALL and shown.salt:
            shown = msgspec.structs.replace(shown, salt="")
        if not secrets and is_seed_key(shown.shuffle):
            shown = msgspec.structs.replace(shown, shuffle=SEEDED_SHUFFLE)
    return shown


def state_view(match: Match, viewer: Viewer, *, secrets: bool | None = None) -> dict[str, Any]:
    """The match in ``viewer``'s view (``state --json``). ``seed`` is there only for a
    reader who may see it (``secrets``; default: the every-hand view, a TD's, or
    anyone once the match has ended); absent otherwise, even for a match without one."""
    view = match.game.view(match.state, viewer)
    if match.closed:  # finished by its series deadline: what a finished match shows (Uxinjo's mp)
        view = {**view, **match.game.closed_fields(match.state)}
    if secrets is None:
        secrets = sees_secrets(viewer, viewer == ALL, match_over(match))
    out = {
        "match": match.id,
        "game": match.game.name,
        "status": match.status,
        "deal": match.game.deal_number(match.state),
        "phase": match.game.phase(match.state),
        "to_act": [match.players[s] for s in match.game.to_act(match.state)],
        "players": list(match.players),
        **view,  # the game's own fields
        "version": match.version,
        "ruleset": match.created.ruleset,
        "options": match.created.options,
    }
    if secrets:
        out["seed"] = match.created.seed
    return out


# --- when a hash may be shown ----------------------------------------------------------------
def hashed(through: int | None, shown: Iterable[tuple[Recorded, Event]]) -> list[str | None]:
    """The chain hash a reader gets of each event ``shown`` to them (in version order,
    each with the event as shown): the event's hash when every earlier event of the match
    is shown to them exactly as stored (all up to version ``through`` are: ``Exactness``;
    None: not known, so none) and so is this one; None otherwise."""
    out: list[str | None] = []
    for record, event in shown:
        if through is not None and through >= record.version - 1 and event == record.event:
            through = max(through, record.version)
            out.append(record.hash.hex())
        else:
            out.append(None)
    return out


def narrowed_hash(through: int | None, record: Recorded, entitled: Event, shown: Event) -> str | None:
    """The hash of an event a reader may see as ``entitled`` and looks at in another view
    as ``shown`` (a replay in one seat's view): what ``hashed`` gives them of the event
    they may see, and only while the view shows it as stored."""
    return hashed(through, [(record, entitled)])[0] if shown == record.event else None


class Exactness:
    """How far each reader sees a match exactly as stored, kept as the match is folded
    (one event at a time, from its start or from a deal boundary): ``through(viewer,
    td, match)`` is the version up to which every event is shown to that reader exactly,
    now. ``hashed`` turns it into hashes.

    Every event is checked once in the every-hand view, with and without the secrets
    (``all_s``, ``all_ns``: how an ended deal's events are shown), and the running deal's
    events once more in each seat's and the public view while they stay exact (``runs``).
    A reader of a running deal sees the ended deals as ``all_ns`` does and the running
    one in their own view; once the match has ended everyone sees what ``all_s`` does.
    A deal's events only ever become more visible (deals and the match end, never
    resume), so what was exact stays so."""

    __slots__ = ("game", "all_s", "all_ns", "current", "deal_start", "runs")

    def __init__(self, game: Game[Any], created: MatchCreated, seats: int, *, at: int, current: int | None) -> None:
        """Before the event after version ``at``: the stream's start (``at`` 0), or a deal
        boundary, where every earlier deal has ended and so every earlier event is shown
        in the every-hand view, exactly as stored but the seed and its shuffle keys (there
        only in a match with a seed); ``current`` is the newest deal then."""
        self.game = game
        self.all_s = at
        self.all_ns = at if at == 0 or created.seed is None else 0
        self.current = current
        #: the version of the running deal's ``DealStarted`` (None: none since ``at``)
        self.deal_start: int | None = None
        #: per seat (and None, the public), how far the running deal is exact in its own view
        self.runs: dict[Viewer, int] = dict.fromkeys([*range(seats), None], at)

    def copy(self) -> Exactness:
        other = Exactness.__new__(Exactness)
        other.game, other.all_s, other.all_ns, other.current = self.game, self.all_s, self.all_ns, self.current
        other.deal_start, other.runs = self.deal_start, dict(self.runs)
        return other

    def fold(self, record: Recorded, before: Any) -> None:
        """Take in the next event (``before``: the match state before it)."""
        event, version = record.event, record.version
        game = self.game
        if isinstance(event, DealStarted) and event.deal != self.current:
            self.current, self.deal_start = event.deal, version
            self.runs = dict.fromkeys(self.runs, version - 1)
        if self.all_s == version - 1 and redact(game, before, event, ALL, secrets=True) == event:
            self.all_s = version
        if self.all_ns == version - 1 and redact(game, before, event, ALL, secrets=False) == event:
            self.all_ns = version
        if self.deal_start is not None:
            for viewer, run in self.runs.items():
                if run == version - 1 and redact(game, before, event, viewer, secrets=False) == event:
                    self.runs[viewer] = version

    def through(self, viewer: Viewer, td: bool, match: Match) -> int | None:
        """The version up to which every event is shown to this reader exactly as stored,
        now (``match``: as folded so far); None when not known from here (the running deal
        began before this count did: read from the stream's start)."""
        over = match_over(match)
        if viewer == ALL:  # every event in the every-hand view
            return self.all_s if sees_secrets(viewer, td, over) else self.all_ns
        if over:
            return self.all_s
        if deal_over(match) or self.current is None:
            return self.all_ns
        if self.deal_start is None:
            return None
        if self.all_ns < self.deal_start - 1:
            return self.all_ns
        return self.runs.get(viewer)


class Shown(msgspec.Struct):
    """One stored event as a reader sees it."""

    record: Recorded
    #: the event as shown (hidden cards ``"??"``, secrets removed)
    event: Event
    #: the view it is shown in: the reader's, or ``ALL`` once its deal has ended
    viewer: Viewer
    #: the match state before it (None for ``MatchCreated``)
    before: Any
    #: the chain hash (hex), or None: withheld while it commits to something hidden
    hash: str | None


def replay_viewer(players: list[str], allowed: Viewer, asked: str | None) -> Viewer:
    """The view a replay shows: ``asked`` ("all", "public" or a player), within what the
    caller may see (``allowed``: everything once the deal has ended, else the caller's
    own view)."""
    if asked is None:
        return allowed
    if asked == "public":
        return None
    if asked == "all":
        wanted: Viewer = ALL
    elif asked in players:
        wanted = players.index(asked)
    else:
        raise InvalidInput(f"view {asked!r} is not 'all', 'public' or a player of this match ({', '.join(players)})")
    if allowed == ALL or wanted == allowed:
        return wanted
    raise NotAllowed(f"this deal is still running: the view {asked!r} needs a TD token"
                     + ("" if wanted == ALL else " or that seat's token"))
