"""The contract every game engine meets, and the helpers they share.

An engine is pure and deterministic: no I/O, no clock, no global randomness.
``decide`` validates a command against a state and returns the events it causes
(or raises ``IllegalCommand`` naming the rule broken); ``evolve`` folds one event.
State is immutable; the stream of events alone rebuilds it.
"""

from __future__ import annotations

import abc
import random
from collections import Counter
from typing import Any, Callable, ClassVar, Generic, Iterable, Sequence, TypeVar

import msgspec

from kartludo.events.base import Event
from kartludo.events.match import DealStarted, MatchCreated

S = TypeVar("S")

#: ``view``/``render`` viewer meaning "every hand" (a TD or a finished replay).
ALL = -1
#: viewer meaning "nobody": public information only.
PUBLIC = None
Viewer = int | None


class IllegalCommand(ValueError):
    """The rules refuse this command; ``rule`` cites the section broken."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __str__(self) -> str:
        return f"{self.message} [{self.rule}]"


class BadCommand(ValueError):
    """A command that cannot even be read (unknown verb, malformed card)."""


class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="verb"):
    """Base of player commands. Subclasses set ``tag=`` to the CLI verb.

    Commands are never stored; the events ``decide`` returns are.
    """

    seat: int

    def args(self) -> list[str]:
        """The verb's arguments as the CLI takes them."""
        return []

    def text(self) -> str:
        verb = type(self).__struct_config__.tag
        return " ".join([str(verb), *self.args()])

    def __lt__(self, other: "Command") -> bool:  # sorted legal commands
        return (self.seat, self.text()) < (other.seat, other.text())


class StartDeal(Command, frozen=True, kw_only=True, tag="deal"):
    """Start the next deal with this deck order (top first).

    The engine never shuffles: when no deck is entered by hand the pipeline fills
    ``deck`` from the match's seeded shuffle (``shuffle`` then names it) or, in a
    match without a seed, from the operating system's CSPRNG (``shuffle`` is
    ``"random"``). ``seat`` is -1: a deal is started by the table (or its TD), not
    by a seat.
    """

    seat: int = -1
    deck: tuple[str, ...]
    shuffle: str | None = None

    def args(self) -> list[str]:
        return list(self.deck)


class Option(msgspec.Struct, frozen=True):
    """A rules option of a game, set with ``--option KEY=VALUE`` at match creation."""

    default: Any
    help: str
    parse: Callable[[str], Any] = str
    check: Callable[[Any], str | None] | None = None  # returns an error message or None


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
    """

    scores: dict[str, int]
    ranks: dict[str, int]
    higher_is_better: bool = True
    match_points: dict[str, int] | None = None
    fouls: dict[str, int] = {}


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


class Game(abc.ABC, Generic[S]):
    """One game's rules. Instances are stateless; every method is pure."""

    name: ClassVar[str]  # registry key, e.g. "uxinjo"
    title: ClassVar[str]
    ruleset: ClassVar[str]  # recorded in MatchCreated; bump when a rule changes
    player_counts: ClassVar[tuple[int, ...]]
    options: ClassVar[dict[str, Option]] = {}
    command_types: ClassVar[tuple[type[Command], ...]]

    # --- setup -------------------------------------------------------------
    @abc.abstractmethod
    def deck(self, options: dict[str, Any]) -> tuple[str, ...]:
        """The full deck, in a canonical order."""

    @abc.abstractmethod
    def seat_labels(self, n_players: int) -> tuple[str, ...]:
        """Seat names in seat order (e.g. Or, Su, Ok)."""

    def check_setup(self, players: Sequence[str], options: dict[str, Any]) -> None:
        """Refuse (``BadCommand``) options that do not fit these players; called when
        a match is created, so a bad setup never reaches the store."""

    @abc.abstractmethod
    def start(self, created: MatchCreated) -> S:
        """The state right after ``MatchCreated``, before any deal."""

    def next_dealer(self, state: S) -> int:
        """The seat that deals the next deal (recorded in ``DealStarted``)."""
        raise NotImplementedError

    # --- the fold ----------------------------------------------------------
    @abc.abstractmethod
    def decide(self, state: S, command: Command) -> list[Event]:
        """The events ``command`` causes, including everything the rules then make
        happen by themselves; raises ``IllegalCommand`` and records nothing."""

    @abc.abstractmethod
    def evolve(self, state: S, event: Event) -> S:
        """Fold one event. Never validates: events are facts."""

    def command_for(self, event: Event) -> Command | None:
        """The command whose acceptance records ``event`` (a player's action or a deal's
        start), so ``audit recheck`` can ask today's rules whether they still accept it;
        None for an event no command makes."""
        return None

    def automatic(self, state: S) -> list[Event]:
        """Events the rules make happen now without anyone's command (rulings,
        settlements, automatic plays). ``decide`` appends them; ``audit recheck``
        compares them with what was recorded."""
        return []

    def decisions(self, event: Event) -> list[Decision]:
        """The decisions without a penalty that ``event`` (a derived event) records."""
        return []

    # --- asking the state --------------------------------------------------
    @abc.abstractmethod
    def legal_commands(self, state: S, seat: int) -> list[Command]:
        """Every command ``seat`` may give now, sorted. ``decide`` accepts each. Empty
        for a seat not in ``to_act`` (the service relies on it)."""

    @abc.abstractmethod
    def to_act(self, state: S) -> list[int]:
        """Seats whose command the game is waiting for (several in a claim window)."""

    @abc.abstractmethod
    def phase(self, state: S) -> str: ...

    @abc.abstractmethod
    def deal_number(self, state: S) -> int: ...

    @abc.abstractmethod
    def is_finished(self, state: S) -> bool: ...

    def can_deal(self, state: S) -> bool:
        """True between deals of a running match (a ``deal`` command is due)."""
        return False

    @abc.abstractmethod
    def result(self, state: S) -> Result | None:
        """The match result once finished, else None."""

    def standing(self, state: S) -> Result | None:
        """The result as things stand now (between deals, a series cut at its
        deadline is scored from it); the final result once finished."""
        return self.result(state)

    # --- hidden information --------------------------------------------------
    @abc.abstractmethod
    def view(self, state: S, viewer: Viewer) -> dict[str, Any]:
        """JSON-able state as ``viewer`` may see it (seat index, ``ALL`` or
        ``PUBLIC``). Keys: ``phase``, ``to_act``, ``hands``, ``totals`` and the
        game's own fields (see DESIGN.md's ``state --json``)."""

    def closed_fields(self, state: S) -> dict[str, Any]:
        """What ``view`` shows once a match is finished, for a match the pipeline closed
        (a series deadline) while the game's own state still runs: the game never sees
        that closure. Uxinjo: ``mp`` from the markers as they stand."""
        return {}

    @abc.abstractmethod
    def redact(self, event: Event, viewer: Viewer) -> Event:
        """The event as ``viewer`` may see it (hidden cards replaced by ``"??"``)."""

    @abc.abstractmethod
    def render(self, state: S, viewer: Viewer) -> str:
        """A text picture of the table for ``replay`` and ``state``."""

    @abc.abstractmethod
    def describe(self, before: S, event: Event, viewer: Viewer) -> str:
        """One line saying what ``event`` did, e.g. "Su discards R7"."""

    # --- commands ----------------------------------------------------------
    @abc.abstractmethod
    def parse_command(self, seat: int, verb: str, args: Sequence[str]) -> Command:
        """Read a CLI command (``discard R5``); raises ``BadCommand``."""

    def bots(self) -> dict[str, "Bot[S]"]:
        return {}

    def trick_role(self, event: Event) -> str | None:
        """``"play"`` for a card played to a trick, ``"end"`` for the event closing a
        trick, None otherwise (and always, in a game without tricks). A replay moves
        trick by trick with it."""
        return None


_RULES_FUNCTIONS = ("start", "next_dealer", "decide", "evolve", "automatic", "legal_commands", "to_act", "can_deal",
                    "command_for")
_VIEW_FUNCTIONS = ("view", "redact", "render", "describe")


class ModuleGame(Game[S]):
    """A game whose rules and views are modules of plain functions (every game here).

    The contract's methods are bound straight to those functions (one call, no
    forwarding frame on the fold's hot path) unless the class defines its own. The
    state has a ``phase`` enum whose ``FINISHED`` value is ``"finished"`` and a
    ``deal`` counter.
    """

    rules: ClassVar[Any]
    views: ClassVar[Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for module, names in ((cls.rules, _RULES_FUNCTIONS), (cls.views, _VIEW_FUNCTIONS)):
            for name in names:
                if name not in cls.__dict__:
                    setattr(cls, name, staticmethod(getattr(module, name)))

    def phase(self, state: S) -> str:
        return state.phase.value  # type: ignore[attr-defined]

    def deal_number(self, state: S) -> int:
        return state.deal  # type: ignore[attr-defined]

    def is_finished(self, state: S) -> bool:
        return state.phase.value == "finished"  # type: ignore[attr-defined]


class Bot(abc.ABC, Generic[S]):
    """A player program. It must look only at what ``game.view(state, seat)`` shows."""

    name: ClassVar[str]

    @abc.abstractmethod
    def choose(self, game: Game[S], state: S, seat: int, legal: list[Command], rng: random.Random) -> Command: ...


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
    legal.sort()
    return legal


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
            if problem:
                raise BadCommand(f"option {key}={value!r}: {problem}")
        out[key] = value
    return out
