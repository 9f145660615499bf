"""What the cross-game engine suites know about each game, and the one driver that plays them.

``test_games_properties.py`` checks everything the game contract lets it check for any
game (legality, the fold, the codecs, hidden hands, determinism, derived events). Each
game's module here declares only what the contract cannot say: how to count its cards,
which commands to try beyond the legal ones, the bots it is played with, and the
invariants of its own rules. Every installed game is checked: one without a module here
gets ``contract_spec``, made from the contract alone (its bots, its short options, its
``every_candidate``); a module adds the game's own invariants.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kartludo.engine.base import ALL, PUBLIC, Bot, Command, Game, StartDeal, Viewer, seeded_deck
from kartludo.engine.bots import HEURISTIC, RANDOM, bots_of
from kartludo.events.base import Event
from kartludo.events.match import MatchCreated

#: a seat whose moves hypothesis draws (in a ``Mode``'s seat list), instead of a bot's
DRAWN = None


class DealTooLong(AssertionError):
    """A deal went past its bound on player commands (reported, never hidden)."""


@dataclass
class Played:
    """A match as played so far: the live state and every event, plus the number of
    player commands each ended deal took."""

    created: MatchCreated
    state: Any
    events: list[Event] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    commands: int = 0

    @property
    def names(self) -> list[str]:
        return list(self.created.players)

    @property
    def n(self) -> int:
        return len(self.created.players)


@dataclass
class Step:
    """One command's effect, as the game-specific checks see it: the state before and
    after, the events, and every viewer's view of the state after (``ALL``,
    ``PUBLIC`` and each seat)."""

    spec: GameSpec
    played: Played
    before: Any
    events: list[Event]
    views: dict[Viewer, dict[str, Any]]

    @property
    def state(self) -> Any:
        return self.played.state

    @property
    def names(self) -> list[str]:
        return self.played.names

    @property
    def n(self) -> int:
        return self.played.n

    def redact(self, event: Event, viewer: Viewer) -> Event:
        """``event`` (one of ``events``) as ``viewer`` sees it, given the state before it."""
        state = self.before
        for e in self.events:
            if e is event:
                break
            state = self.spec.game.evolve(state, e)
        return self.spec.game.redact(state, event, viewer)


@dataclass(frozen=True)
class Mode:
    """One way to play property matches: who plays each seat (a bot, or ``DRAWN``
    for moves hypothesis draws), how far, and what to check at the end."""

    seats: Callable[[int], list[Bot[Any] | None]]
    examples: int
    deals: int | None = None  # stop before dealing past this many deals
    options: dict[str, Any] = field(default_factory=dict)
    max_commands: int | None = None  # stop quietly after this many player commands
    per_deal: int | None = None  # a deal taking more player commands fails (DealTooLong)
    exhaustive: float = 0.05  # share of states where every candidate command is tried
    check_end: Callable[[Played], None] | None = None


@dataclass(frozen=True)
class BotMatch:
    """A bot match on fixed seeds (for determinism, derived events, matches that finish)."""

    n: int
    bots: Callable[[], list[Bot[Any]]]
    seeds: Sequence[int]
    deals: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    max_commands: int | None = None
    per_deal: int | None = None


@dataclass(frozen=True)
class GameSpec:
    """The per-game table of the cross-game suites."""

    game: Game[Any]
    player_counts: tuple[int, ...]
    #: the match set-up for ``n`` players, a seed and extra options
    created: Callable[[int, int, dict[str, Any]], MatchCreated]
    #: every card of a state with a deal under way (where it lies does not matter); None between matches
    cards: Callable[[Any], Counter[str] | None]
    #: commands to try besides the legal ones (legal or not) for ``seat``
    candidates: Callable[[Any, int, random.Random], list[Command]]
    #: the game's own invariants after every command
    check_step: Callable[[Step], None]
    modes: dict[str, Mode]
    #: the fixed-seed match every contract check runs over
    reference: BotMatch
    #: what the reference match must show beyond the generic checks
    check_reference: Callable[[Played, Coverage], None]
    deterministic: BotMatch
    #: whole matches that must end, and how many of them at least
    finishing: list[BotMatch]
    check_finished: Callable[[Played], None]
    min_finished: int | None = None  # None: every one
    #: invariants of a whole (or cut) match, checked at the end of every played match
    check_match: Callable[[Played], None] = lambda played: None
    #: check at most this many legal commands per state (None: all of them)
    legal_sample: int | None = None
    #: the game waits for one seat at a time
    one_to_act: bool = False

    @property
    def name(self) -> str:
        return self.game.name

    def parse(self, seat: int, text: str) -> Command:
        """A command from its text, as a player types it."""
        verb, *args = text.split()
        if verb == "deal":
            return StartDeal(deck=tuple(args))
        return self.game.parse_command(seat, verb, args)

    def finishing_runs(self) -> list[tuple[BotMatch, int]]:
        return [(run, seed) for run in self.finishing for seed in run.seeds]


@dataclass
class Coverage:
    """What a checked match exercised, so a fixed-seed test can insist it checked something."""

    steps: int = 0
    seats_not_to_act: int = 0  # (state, seat) pairs checked to have no legal command
    action_kinds: set[type] = field(default_factory=set)  # action events read back as their command
    derived: int = 0  # derived events recomputed from the state before them
    exhaustive: int = 0  # states where every candidate command was tried


class Choices:
    """Who moves, and how: the seeded shuffle and the bots' own random choices."""

    def __init__(self, seed: int, bots: Sequence[Bot[Any] | None]) -> None:
        self.seed = seed
        self.bots = list(bots)
        self.rng = random.Random(seed)

    def deck(self, game: Game[Any], played: Played) -> StartDeal:
        deck, key = seeded_deck(game.deck(played.created.options), self.seed, game.deal_number(played.state) + 1)
        return StartDeal(deck=deck, shuffle=key)

    def seat(self, seats: list[int]) -> int:
        return seats[self.rng.randrange(len(seats))] if len(seats) > 1 else seats[0]

    def command(self, game: Game[Any], state: Any, seat: int, legal: list[Command]) -> Command:
        bot = self.bots[seat]
        assert bot is not None, "a seeded match needs a bot on every seat"
        return bot.choose(game, state, seat, legal, self.rng)


class DrawnChoices(Choices):
    """Hypothesis draws the decks, the seat that moves when several may, and the index
    of the legal command of every ``DRAWN`` seat, so a failure shrinks to a short game
    played from a deck in canonical order."""

    def __init__(self, data: Any, seed: int, bots: Sequence[Bot[Any] | None]) -> None:
        super().__init__(seed, bots)
        self.data = data

    def deck(self, game: Game[Any], played: Played) -> StartDeal:
        from hypothesis import strategies as st

        cards = self.data.draw(st.permutations(game.deck(played.created.options)), label="deck")
        return StartDeal(deck=tuple(cards))

    def seat(self, seats: list[int]) -> int:
        from hypothesis import strategies as st

        return self.data.draw(st.sampled_from(seats), label="seat") if len(seats) > 1 else seats[0]

    def command(self, game: Game[Any], state: Any, seat: int, legal: list[Command]) -> Command:
        from hypothesis import strategies as st

        if self.bots[seat] is DRAWN:
            return legal[self.data.draw(st.integers(0, len(legal) - 1), label="move")]
        return super().command(game, state, seat, legal)


StepCheck = Callable[[Any, Played, list[Event]], None]


def play(
    game: Game[Any],
    created: MatchCreated,
    choices: Choices,
    *,
    deals: int | None = None,
    max_commands: int | None = None,
    per_deal: int | None = None,
    check: StepCheck | None = None,
) -> Played:
    """Play until the match ends, ``deals`` deals are done, or ``max_commands`` player
    commands were given; ``check(before, played, events)`` runs after every command."""
    played = Played(created, game.start(created))
    in_deal = 0
    while not game.is_finished(played.state):
        if max_commands is not None and played.commands >= max_commands:
            break
        before = played.state
        if game.can_deal(before):
            if deals is not None and game.deal_number(before) >= deals:
                break
            command: Command = choices.deck(game, played)
            in_deal = 0
        else:
            in_deal += 1
            played.commands += 1
            if per_deal is not None and in_deal > per_deal:
                raise DealTooLong(
                    f"{game.name}, seed {created.seed}, {played.n} players: deal {game.deal_number(before)} "
                    f"passed {per_deal} commands"
                )
            seat = choices.seat(game.to_act(before))
            command = choices.command(game, before, seat, game.legal_commands(before, seat))
        events = game.decide(before, command)
        state = before
        for event in events:
            state = game.evolve(state, event)
        played.state = state
        played.events.extend(events)
        if not isinstance(command, StartDeal) and (game.can_deal(state) or game.is_finished(state)):
            played.lengths.append(in_deal)
        if check is not None:
            check(before, played, events)
    return played


def play_bots(spec: GameSpec, run: BotMatch, seed: int, check: StepCheck | None = None) -> Played:
    """One of a spec's fixed-seed bot matches."""
    return play(spec.game, spec.created(run.n, seed, run.options), Choices(seed, run.bots()), deals=run.deals,
                max_commands=run.max_commands, per_deal=run.per_deal, check=check)


def viewers(n: int) -> list[Viewer]:
    return [ALL, PUBLIC, *range(n)]


def short_options(game: Game[Any]) -> dict[str, Any]:
    """The options that keep a match of ``game`` short (``Option.short``), parsed."""
    return {key: opt.parse(opt.short) for key, opt in game.options.items() if opt.short is not None}


def contract_spec(game: Game[Any]) -> GameSpec:
    """The spec of a game without a module here, from its contract alone: its bots
    (``bots_of``: the heuristic one, or the random bot standing in), matches made short
    by its ``Option.short`` values, ``every_candidate`` as the commands to try, bounds
    on player commands instead of per-deal ones, and no invariants of its own rules."""
    bots = bots_of(game)
    heuristic, random_bot = bots[HEURISTIC], bots[RANDOM]
    smallest, most = game.player_counts[0], game.player_counts[-1]

    def created(n: int, seed: int, options: dict[str, Any]) -> MatchCreated:
        chosen = {key: opt.default for key, opt in game.options.items()} | short_options(game) | options
        return MatchCreated(game=game.name, ruleset=game.ruleset, players=[f"p{i}" for i in range(n)], seed=seed,
                            options=chosen)

    def candidates(state: Any, seat: int, rng: random.Random) -> list[Command]:
        return game.every_candidate(state, seat)

    return GameSpec(
        game=game,
        player_counts=game.player_counts,
        created=created,
        cards=lambda state: None,
        candidates=candidates,
        check_step=lambda step: None,
        modes={
            "drawn": Mode(lambda n: [DRAWN] * n, examples=6, deals=2, max_commands=300, exhaustive=0.2),
            "heuristic": Mode(lambda n: [heuristic] * n, examples=6, deals=2, max_commands=2_000, exhaustive=0.1),
            "mixed": Mode(lambda n: [heuristic, DRAWN] * n, examples=4, deals=2, max_commands=400, exhaustive=0.1),
        },
        reference=BotMatch(smallest, lambda: [heuristic] * smallest, seeds=[3], max_commands=5_000),
        check_reference=lambda played, coverage: None,
        deterministic=BotMatch(smallest, lambda: [heuristic, random_bot] * smallest, seeds=[7], deals=2,
                               max_commands=3_000),
        finishing=[BotMatch(n, lambda: [heuristic] * most, seeds=range(3), max_commands=20_000)
                   for n in game.player_counts],
        check_finished=lambda played: None,
        min_finished=1,
        legal_sample=50,
    )


def _load() -> dict[str, GameSpec]:
    """Every module of this package declares one game's ``SPEC``; every other installed
    game gets its ``contract_spec``."""
    import importlib
    import pkgutil

    from kartludo.engine.registry import all_games

    specs = {spec.name: spec for spec in (importlib.import_module(f"{__name__}.{m.name}").SPEC
                                          for m in pkgutil.iter_modules(__path__))}
    for game in all_games():
        specs.setdefault(game.name, contract_spec(game))
    return dict(sorted(specs.items()))


SPECS: dict[str, GameSpec] = _load()
