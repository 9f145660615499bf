"""The contract every game engine meets, and the helpers they share.

An engine is pure and deterministic: no I/O, no clock, no global randomness.
``decide`` validates a command against a state and returns the events it causes
(or raises ``IllegalCommand`` naming the rule broken); ``evolve`` folds one event.
State is immutable; the stream of events alone rebuilds it. A game is a package
``kartludo.engine.<game>`` whose ``GAME`` is an instance of a ``Game`` subclass
(``engine/registry.py`` finds it; docs/adding-a-game.md says how to add one).

The contract, ``Game``'s 50 public names (mypy checks every game against them):

- data a game must provide (20 required names in all, with the rules and views below):
  ``name``, ``title``, ``ruleset``, ``player_counts``, ``seat_names``, ``full_deck``,
  ``command_types``, ``recorded_commands``;
- the rules: ``start``, ``next_dealer``, ``check``, ``candidates``, ``evolve``,
  ``automatic``, ``to_act``, ``result``;
- what a viewer may see: ``view``, ``redact``, ``render``, ``describe``;
- optional, with defaults that work for any game (16): ``options`` (none),
  ``trick_events`` (no tricks), ``foul_series_mp`` (0), ``total_column``
  (``score``), ``low_totals_win`` (False), ``zero_sum_scores`` (False), ``flag_penalty`` (1),
  ``check_setup`` (accepts any),
  ``standing`` (``result``), ``table_zones`` (none), ``closed_fields`` (none),
  ``decisions`` (none), ``penalty_changes`` (none: no penalties), ``bots`` (none:
  the random bot plays, and stands in for ``"heuristic"``), ``caution`` (none),
  ``every_candidate`` (``candidates``);
- derived for every game, never overridden (14): ``decide``, ``legal_commands``,
  ``legal_cautions``, ``legal_shapes``, ``hand_of``, ``phase``, ``deal_number``,
  ``is_finished``, ``can_deal``, ``deck``, ``parse_command``, ``verbs``,
  ``command_for``, ``trick_role``.

What the contract asks beyond the signatures: the state has ``players``,
``options``, ``phase`` (a ``str`` enum with the members ``WAITING_DEAL`` and
``FINISHED``) and ``deal`` (``GameState``); a deal starts by ``check`` accepting a
``StartDeal`` (``check_deal``) and its ``DealStarted`` records the dealer; event types
are frozen tagged structs in ``events/<game>.py`` (``derived`` for the engine's own,
``ends_deal`` for a deal's and the match's last); rule references cite sections of
``docs/rules/<game>.md`` as ``<game> §Section``, and the page has a ``§Commands``
section (a command that cannot be read cites it).
"""

from __future__ import annotations

import abc
import enum
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast

import msgspec

from kartludo.engine.commands import BadCommand, Command, StartDeal, parse_command, player_verbs
from kartludo.events.base import Event
from kartludo.events.match import DealStarted, MatchCreated

if TYPE_CHECKING:
    from kartludo.engine.shapes import Shape

__all__ = [
    "ALL", "PUBLIC", "Viewer", "IllegalCommand", "BadCommand", "Command", "StartDeal", "Option", "Decision",
    "Result", "DealRules", "GameState", "Game", "PenaltyChanges", "Bot", "ranks_from_scores", "check_deck",
    "check_deal", "deal_command", "seeded_deck", "decide_with", "accepted", "fold", "parse_options", "put", "remove",
    "WAITING_DEAL", "FINISHED", "COMMANDS_SECTION",
]

#: ``view``/``render`` viewer meaning "every hand" (a TD or a finished replay).
ALL = -1
#: viewer meaning "nobody": public information only.
PUBLIC = None
Viewer = int | None

#: the ``phase`` values every game's state uses between deals and once the match is over
#: (each game's phase enum is a ``str`` enum: its members compare equal to these, at the
#: cost of a string comparison, where ``.value`` is an enum descriptor call; a rebuild
#: asks ``is_finished`` of every state)
WAITING_DEAL = "waiting_deal"
FINISHED = "finished"
#: the section of every game's rules page listing its verbs: an unreadable command cites it
COMMANDS_SECTION = "Commands"


class IllegalCommand(ValueError):
    """The rules refuse this command; ``rule`` cites the section broken."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __str__(self) -> str:
        return f"{self.message} [{self.rule}]"


class Option(msgspec.Struct, frozen=True):
    """A rules option of a game, set with ``--option KEY=VALUE`` at match creation."""

    default: Any
    help: str
    parse: Callable[[str], Any] = str
    check: Callable[[Any], str | None] | None = None  # returns an error message or None
    #: the value as typed (``--option KEY=VALUE``) that keeps a match short (two deals,
    #: say), or None: the test suite plays short matches of every game with it
    short: str | None = None


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """A decision recorded inside a derived event that voids a player's act without a
    penalty (an invalid claim beside a valid one, a levu voided by all three): not a
    penalty ruling, but the audit trail lists it beside them. ``key`` is unique in the
    match, like a ruling id."""

    key: str
    seat: int
    rule: str
    facts: dict[str, Any] = {}
    effect: dict[str, Any] = {}


class Result(msgspec.Struct, frozen=True, kw_only=True):
    """A finished (or series-cut) match, as projections need it.

    ``scores`` is the game's own total per player (Uxinjo MP, Hakamo points,
    Laugavatnsmanni points, Svoi Kozyri losses); ``ranks`` 1 = best, ties share.
    ``match_points``: a game scoring match points (Uxinjo) gives them, and a series
    totals them (a game without them scores placement points there). ``fouls``: the
    penalty rulings standing against each player (each costs ``Game.foul_series_mp``
    in a series).
    """

    scores: dict[str, int]
    ranks: dict[str, int]
    higher_is_better: bool = True
    match_points: dict[str, int] | None = None
    fouls: dict[str, int] = {}


class DealRules(msgspec.Struct, frozen=True):
    """The rules-page sections the shared deal checker cites (``check_deal``)."""

    done: str  # the match is over: no further deal
    in_progress: str  # a deal ends before the next is dealt
    deck: str  # a listed deck is the game's whole deck, top first


class GameState(Protocol):
    """What every game's state struct has, so the match-level questions (phase, deal
    number, finished, may a deal start) are answered once for all games."""

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def options(self) -> dict[str, Any]: ...

    @property
    def phase(self) -> enum.Enum:
        """A string enum with the values ``WAITING_DEAL`` and ``FINISHED`` among its own."""
        ...

    @property
    def deal(self) -> int:
        """Deals started so far (0 before the first)."""
        ...


S = TypeVar("S", bound=GameState)


def ranks_from_scores(scores: dict[str, int], higher_is_better: bool = True) -> dict[str, int]:
    """Competition ranking (1, 2, 2, 4): ties share the better place."""
    ordered = sorted(scores.values(), reverse=higher_is_better)
    return {p: ordered.index(s) + 1 for p, s in scores.items()}


def check_deck(deck: Sequence[str], full: Sequence[str], rule: str) -> None:
    """Refuse a listed deck that is not exactly ``full`` (as a multiset), naming
    the unknown, missing and extra cards; ``rule`` cites the game's dealing section."""
    known = set(full)
    unknown = sorted({c for c in deck if c not in known})
    have, want = Counter(deck), Counter(full)
    missing = sorted((want - have).elements())
    extra = sorted((have - want).elements())
    extra = [c for c in extra if c in known]
    if unknown or missing or extra:
        parts = []
        if unknown:
            parts.append("unknown cards " + " ".join(unknown))
        if missing:
            parts.append("missing " + " ".join(missing))
        if extra:
            parts.append("extra " + " ".join(extra))
        raise IllegalCommand(
            f"the deck is not the game's {len(full)}-card deck: " + "; ".join(parts)
            + f" ({len(deck)} cards given)",
            rule,
        )


def check_deal(state: GameState, cmd: StartDeal, *, deck: Sequence[str], rules: DealRules, dealer: int,
               pending: Callable[[Any], list[Event]]) -> list[Event]:
    """Every game's ``deal`` checker: a deal starts between deals, once the rules have
    nothing left to do by themselves (``pending`` is the game's ``automatic``), with
    the game's whole deck; ``dealer`` deals it."""
    phase = state.phase.value
    if phase == FINISHED:
        raise IllegalCommand("the match is over: no further deal", rules.done)
    if phase != WAITING_DEAL or pending(state):
        raise IllegalCommand(f"deal {state.deal} is still in progress", rules.in_progress)
    check_deck(cmd.deck, deck, rules.deck)
    return [DealStarted(deal=state.deal + 1, dealer=dealer, deck=list(cmd.deck), shuffle=cmd.shuffle)]


def deal_command(event: DealStarted) -> StartDeal:
    """The ``deal`` command a recorded deal start answers (its deck and shuffle)."""
    return StartDeal(deck=tuple(event.deck), shuffle=event.shuffle)


def seeded_deck(full: Sequence[str], seed: int, deal: int) -> tuple[tuple[str, ...], str]:
    """The match's seeded shuffle for its ``deal``-th deal, and the shuffle's name.

    ``random.Random`` seeded with a string is stable across platforms and Python
    versions; the resulting order is recorded in the deal's event anyway, and
    ``kartludo verify`` checks it against this. Whoever knows the seed knows every
    deal, so the seed and the name are TD secrets until the match has ended, and a
    seed must be too large to search from a deal's public deck.
    """
    key = f"{seed}:{deal}"
    cards = list(full)
    random.Random(key).shuffle(cards)
    return tuple(cards), key


# --- tuple helpers every rules module uses ---------------------------------------------


T = TypeVar("T")


def put(values: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """``values`` with item ``i`` replaced (per-seat tuples in immutable states)."""
    return values[:i] + (value,) + values[i + 1 :]


def remove(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    """``hand`` without one copy of ``card`` (which it holds)."""
    i = hand.index(card)
    return hand[:i] + hand[i + 1 :]


class Game(abc.ABC, Generic[S]):
    """One game's rules, as a handful of pure functions over its state ``S``.

    Instances are stateless. A game binds its rules and view modules' functions as
    ``staticmethod`` class attributes (one call, no forwarding frame on the fold's hot
    path) or overrides them as methods; its data as plain class attributes. The module
    docstring lists the contract; mypy checks each game against it (a game missing a
    required name cannot be instantiated, and a function bound with another signature
    is an incompatible assignment).
    """

    # --- data a game must provide -------------------------------------------------------
    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The registry key: the package name with ``_`` written ``-``."""

    @property
    @abc.abstractmethod
    def title(self) -> str:
        """The game's name as people write it (``Svoi Kozyri``)."""

    @property
    @abc.abstractmethod
    def ruleset(self) -> str:
        """Recorded in ``MatchCreated``; bump it (``uxinjo-3``) when a rule changes."""

    @property
    @abc.abstractmethod
    def player_counts(self) -> tuple[int, ...]:
        """The table sizes the game is played at, smallest first."""

    @property
    @abc.abstractmethod
    def seat_names(self) -> tuple[str, ...]:
        """Seat labels in seat order, for the largest table (``Or, Su, Ok``)."""

    @property
    @abc.abstractmethod
    def full_deck(self) -> tuple[str, ...]:
        """Every card code of the deck in a canonical order (twins listed twice)."""

    @property
    @abc.abstractmethod
    def command_types(self) -> tuple[type[Command], ...]:
        """``StartDeal`` first, then the player commands; each declares its CLI arguments,
        so parsing and printing are generic."""

    @property
    @abc.abstractmethod
    def recorded_commands(self) -> Mapping[type[Event], Callable[[Any], Command]]:
        """Each action event type (not ``derived``) -> the command whose acceptance
        records it, made from the event: ``audit recheck`` asks today's rules whether
        they still accept every recorded action, and the suite reads every action back."""

    # --- optional data, with defaults ---------------------------------------------------
    options: ClassVar[dict[str, Option]] = {}
    #: (card played to a trick, event closing a trick), for a game with tricks
    trick_events: ClassVar[tuple[type[Event], type[Event]] | None] = None
    #: match points each standing penalty ruling costs a player in a series
    foul_series_mp: ClassVar[int] = 0
    #: the standings' name for the game's own total, and a line saying what it counts
    #: and which way is better (a TD reads "losses", not "score", for a game won low)
    total_column: ClassVar[tuple[str, str]] = ("score", "the game's own total")
    #: a lower total is better (Svoi Kozyri counts deals lost): how a duplicate board
    #: compares the tables' deal scores, the view's ``totals`` after one deal
    low_totals_win: ClassVar[bool] = False
    #: a deal's scores always sum to zero (Uxinjo's markers): an adjusted score must too
    zero_sum_scores: ClassVar[bool] = False
    #: what a flag fall costs under the ``bot-penalty`` time control, in the game's own
    #: score: the flagged seat's total moves that much the wrong way, or, in a zero-sum
    #: game, the seat pays it to each other seat (``engine.match.flag_penalty``)
    flag_penalty: ClassVar[int] = 1

    # --- the rules a game must provide --------------------------------------------------
    @abc.abstractmethod
    def start(self, created: MatchCreated, /) -> S:
        """The state right after ``MatchCreated``, before any deal."""

    @abc.abstractmethod
    def next_dealer(self, state: S, /) -> int:
        """The seat that deals the next deal (its ``check`` records it in ``DealStarted``;
        a deck entered by hand is dealt from it)."""

    @abc.abstractmethod
    def check(self, state: S, command: Command, /) -> list[Event]:
        """The action events ``command`` causes, or ``IllegalCommand`` naming the rule
        (a ``StartDeal`` included: see ``check_deal``, which records the dealer the
        rules choose). ``decide`` and ``legal_commands`` both run it, so they never
        disagree."""

    @abc.abstractmethod
    def candidates(self, state: S, seat: int, /) -> list[Command]:
        """Every command worth checking for ``seat`` now (a superset of the legal ones)."""

    @abc.abstractmethod
    def evolve(self, state: S, event: Event, /) -> S:
        """Fold one event. Never validates: events are facts."""

    @abc.abstractmethod
    def automatic(self, state: S, /) -> list[Event]:
        """Events the rules make happen now without anyone's command (rulings,
        settlements, automatic plays). ``decide`` appends them; ``audit recheck``
        compares them with what was recorded."""

    @abc.abstractmethod
    def to_act(self, state: S, /) -> list[int]:
        """Seats whose command the game is waiting for (several in a claim window)."""

    @abc.abstractmethod
    def result(self, state: S, /) -> Result | None:
        """The match result once finished, else None."""

    # --- what a viewer may see, which a game must provide -------------------------------
    @abc.abstractmethod
    def view(self, state: S, viewer: Viewer, /) -> dict[str, Any]:
        """The game's own fields as ``viewer`` (seat index, ``ALL`` or ``PUBLIC``) may
        see them: at least ``hands`` (by player name: only the hands the viewer may
        see; ``{}`` for ``PUBLIC``) and ``totals`` (every player's game score, by name,
        in seat order), then the game's own (DESIGN.md's ``state --json`` lists the
        four games'). The match-level fields (``status``, ``deal``, ``phase``,
        ``to_act``, ``players``) are the app's."""

    @abc.abstractmethod
    def redact(self, state: S, event: Event, viewer: Viewer, /) -> Event:
        """``event`` as ``viewer`` may see it (hidden cards replaced by ``"??"``);
        ``state`` is the match state before it (who holds which dealt card)."""

    @abc.abstractmethod
    def render(self, state: S, viewer: Viewer, /) -> str:
        """A text picture of the table for ``replay`` and ``state``. Its first line
        names the game, the deal and the phase; between two deals it names who deals
        next (``next dealer bob``), and never before the first deal or during one."""

    @abc.abstractmethod
    def describe(self, before: S, event: Event, viewer: Viewer, /) -> str:
        """One line saying what one of the game's own events did, e.g. "Su discards R7"
        (the match's common events are described by the app)."""

    # --- optional hooks ---------------------------------------------------------------
    def check_setup(self, players: Sequence[str], options: dict[str, Any]) -> None:
        """Refuse (``BadCommand``) options that do not fit these players; called when
        a match is created, so a bad setup never reaches the store. Accepts any."""

    def standing(self, state: S, /) -> Result | None:
        """The result as things stand now (between deals, a series cut at its
        deadline is scored from it); by default the final result once finished."""
        return self.result(state)

    def table_zones(self, view: dict[str, Any], /) -> list[tuple[str, list[str]]]:
        """The cards in the middle of the table in ``view`` (a trick, a pile, the top
        discard), each zone named, for the casebook's deal diagram: none by default.
        A seat's hand and exposed cards are drawn at the seat from the view's common
        ``hands``/``hand_sizes``/``exposed`` fields."""
        return []

    def closed_fields(self, state: S, /) -> dict[str, Any]:
        """What ``view`` shows once a match is finished, for a match the pipeline closed
        (a series deadline) while the game's own state still runs: the game never sees
        that closure. None by default."""
        return {}

    def decisions(self, event: Event, players: Sequence[str], /) -> list[Decision]:
        """The decisions without a penalty that ``event`` (a derived event) records;
        ``players`` in seat order, so that the facts name them. None by default."""
        return []

    def penalty_changes(self, event: Event, before: S, after: S, /) -> PenaltyChanges | None:
        """What an event (a ruling, a TD's decision, a derived event) did to penalty
        rulings, given the states before and after it, for the audit trail; None:
        nothing (the default: a game without penalties). Called for each such event:
        cheap when nothing changed."""
        return None

    def bots(self) -> dict[str, Bot[S]]:
        """The game's own bots by name, its sensible player named ``"heuristic"``; none
        by default. Every game is also played by ``"random"`` (``engine.bots``), which
        stands in for a missing ``"heuristic"`` (``engine.bots.bots_of``, and says so)."""
        return {}

    def caution(self, state: S, command: Command, /) -> tuple[str, str] | None:
        """What a player should confirm before ``command`` (it ends the deal, or is a
        foul by rules the player can see) and the rule cited, or None (the default).
        Judged from what the command's seat sees only: a caution never tells a hidden card."""
        return None

    def every_candidate(self, state: S, seat: int, /) -> list[Command]:
        """Every command a seat might type now, refused ones included, for the suite's
        check that every refusal cites a rule; by default ``candidates`` (a game whose
        candidates leave out verbs the phase refuses lists them here)."""
        return self.candidates(state, seat)

    # --- derived for every game -----------------------------------------------------------
    def decide(self, state: S, command: Command) -> list[Event]:
        """The events ``command`` causes, including everything the rules then make
        happen by themselves; raises ``IllegalCommand`` and records nothing."""
        return decide_with(self.check, self.evolve, self.automatic, state, command)

    def legal_commands(self, state: S, seat: int) -> list[Command]:
        """Every command ``seat`` may give now, sorted; ``decide`` accepts each. Empty
        for a seat not in ``to_act`` (the service relies on it)."""
        if seat not in self.to_act(state):
            return []
        return accepted(self.check, state, self.candidates(state, seat))

    def legal_cautions(self, state: S, seat: int, legal: list[Command] | None = None) -> dict[str, dict[str, str]]:
        """``{command text: {"text": ..., "rule": ...}}`` for ``seat``'s legal commands
        that have a caution."""
        if legal is None:
            legal = self.legal_commands(state, seat)
        out = {}
        for command in legal:
            found = self.caution(state, command)
            if found is not None:
                out[command.text()] = {"text": found[0], "rule": found[1]}
        return out

    def legal_shapes(self, state: S, seat: int, legal: list[Command] | None = None) -> list[Shape]:
        """Each legal verb's shape for ``seat`` (``engine.shapes``): which of its cards,
        how many, which numbers, so a client never needs every command. ``legal``: the
        seat's legal commands when the caller already has them."""
        from kartludo.engine.shapes import shapes

        if legal is None:
            legal = self.legal_commands(state, seat)
        if not legal:
            return []
        return shapes(legal, self.verbs(), self.hand_of(state, seat), seat, self.parse_command, state.players)

    def hand_of(self, state: S, seat: int) -> list[str]:
        """``seat``'s own cards in the order its hand holds them (its own view)."""
        hands = self.view(state, seat).get("hands", {})
        players = state.players
        return list(hands.get(players[seat], [])) if 0 <= seat < len(players) else []

    def phase(self, state: S) -> str:
        return str(state.phase.value)

    def deal_number(self, state: S) -> int:
        return state.deal

    def is_finished(self, state: S) -> bool:
        return cast(str, state.phase) == FINISHED  # a str enum (GameState.phase)

    def can_deal(self, state: S) -> bool:
        """True between deals when the rules accept a ``deal`` now (the checker decides)."""
        if cast(str, state.phase) != WAITING_DEAL:
            return False
        try:
            self.check(state, StartDeal(deck=self.deck(state.options)))
        except IllegalCommand:
            return False
        return True

    def deck(self, options: dict[str, Any]) -> tuple[str, ...]:
        """The full deck, in a canonical order."""
        return self.full_deck

    def parse_command(self, seat: int, verb: str, args: Sequence[str]) -> Command:
        """Read a CLI command (``discard R5``) as one of ``command_types``; raises
        ``BadCommand`` citing the game's commands section (``<game> §Commands``), as a
        rule's refusal cites its rule."""
        return parse_command(self.title, self.command_types, seat, verb, args, f"{self.name} §{COMMANDS_SECTION}")

    def verbs(self) -> list[type[Command]]:
        """The commands a seat types, in ``command_types`` order."""
        return list(player_verbs(self.command_types).values())

    def command_for(self, event: Event) -> Command | None:
        """The command whose acceptance records ``event`` (a player's action or a deal's
        start), so ``audit recheck`` can ask today's rules whether they still accept it;
        None for an event no command makes."""
        if type(event) is DealStarted:
            return deal_command(event)
        make = self.recorded_commands.get(type(event))
        return None if make is None else make(event)

    def trick_role(self, event: Event) -> str | None:
        """``"play"`` for a card played to a trick, ``"end"`` for the event closing a
        trick, None otherwise (and always, in a game without tricks). A replay moves
        trick by trick with it."""
        if self.trick_events is None:
            return None
        played, ended = self.trick_events
        return "play" if isinstance(event, played) else "end" if isinstance(event, ended) else None


class PenaltyChanges(msgspec.Struct, frozen=True, kw_only=True):
    """What one event did to penalty rulings. ``started``: ruling ids that now stand
    (their penalty voids what their player is paid); ``lifted``: ids that stopped
    standing for ``reason`` (a valid munt; or an overturn, whose recomputation moved
    an earlier lift onto them); ``ended``: ids that stopped standing otherwise (the
    overturned ruling itself); ``transfers``: what the event voided (payer and payee seats,
    amount, reason). A voided transfer is voided by every ruling standing against its
    payee then, which the audit trail knows from these changes: no event names them.
    A ruling stands from the event that started it until the one that lifted or ended
    it (an overturn only ever removes standing penalties, so once is all)."""

    started: list[str] = []
    lifted: list[str] = []
    ended: list[str] = []
    reason: str = ""
    transfers: list[tuple[int, int, int, str]] = []


class Bot(abc.ABC, Generic[S]):
    """A player program. It must look only at what ``game.view(state, seat)`` shows
    (and the public phase and players)."""

    name: ClassVar[str]

    @abc.abstractmethod
    def choose(self, game: Game[S], state: S, seat: int, legal: Sequence[Command], rng: random.Random) -> Command:
        """One of ``legal`` (``engine.legal.Legal`` in simulations and rollouts: ``cmd in
        legal`` checks one command without listing them all)."""


def decide_with(
    check: Callable[[S, Command], list[Event]],
    evolve: Callable[[S, Event], S],
    automatic: Callable[[S], list[Event]],
    state: S,
    command: Command,
) -> list[Event]:
    """A game's ``decide``: the action events ``check`` accepts, then whatever the
    rules make happen by themselves, until nothing more does."""
    events = check(state, command)
    for event in events:
        state = evolve(state, event)
    while True:
        more = automatic(state)
        if not more:
            return events
        for event in more:
            state = evolve(state, event)
        events.extend(more)


def accepted(check: Callable[[S, Command], Any], state: S, candidates: Iterable[Command]) -> list[Command]:
    """The candidate commands ``check`` accepts, sorted: ``legal_commands`` runs the
    same checker as ``decide``, so the two can never disagree."""
    legal = []
    for command in candidates:
        try:
            check(state, command)
        except IllegalCommand:
            continue
        legal.append(command)
    legal.sort(key=_command_order)  # Command.__lt__'s order, each command's text made once
    return legal


def _command_order(command: Command) -> tuple[int, str]:
    return command.seat, command.text()


def fold(game: Game[S], created: MatchCreated, events: Iterable[Event]) -> S:
    state = game.start(created)
    evolve = game.evolve
    for event in events:
        state = evolve(state, event)
    return state


def parse_options(game: Game[Any], given: dict[str, str]) -> dict[str, Any]:
    """Validate ``--option KEY=VALUE`` pairs against the game's options and fill defaults."""
    unknown = sorted(set(given) - set(game.options))
    if unknown:
        known = ", ".join(sorted(game.options)) or "none"
        raise BadCommand(f"unknown option {', '.join(unknown)} for {game.name} (options: {known})")
    out: dict[str, Any] = {}
    for key, opt in game.options.items():
        if key in given:
            try:
                value = opt.parse(given[key])
            except (TypeError, ValueError) as exc:
                raise BadCommand(f"option {key}={given[key]!r}: {exc}") from None
        else:
            value = opt.default
        if opt.check is not None:
            problem = opt.check(value)
            if problem:  # the value as typed (S,S,H), not as parsed (['S', 'S', 'H'])
                shown = given[key] if key in given else repr(value)
                raise BadCommand(f"option {key}={shown}: {problem}")
        out[key] = value
    return out
