"""What every game promises, checked after every command of played matches.

One suite for every installed game (and every player count a game allows): the game
contract says what can be checked for any game; ``gamespecs`` adds each game's own table
(how to count its cards, the commands to try, its bots, the invariants of its rules), or
makes one from the contract alone for a game without one.

Hypothesis plays the property matches: it draws each deck, the seat that moves when
several may, and the index of a legal command for every seat it plays (the others
are the game's heuristic bots), so a failing match shrinks to a short one.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import msgspec
import pytest
from gamespecs import SPECS, Coverage, DrawnChoices, GameSpec, Mode, Played, Step, play, play_bots, viewers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kartludo.engine.base import ALL, PUBLIC, IllegalCommand, fold, ranks_from_scores
from kartludo.engine.legal import Legal
from kartludo.events.base import decode, encode, from_builtins, to_json
from kartludo.events.match import DealStarted

TABLES = [(name, n) for name, spec in SPECS.items() for n in spec.player_counts]
MODES = [(name, n, mode) for name, n in TABLES for mode in SPECS[name].modes]


def accepted(game, state, command) -> bool:
    try:
        game.decide(state, command)
    except IllegalCommand:
        return False
    return True


class Checker:
    """Runs after every command of a played match: the contract's invariants, then the
    game's own (``spec.check_step``)."""

    def __init__(self, spec: GameSpec, rng: random.Random, exhaustive: float) -> None:
        self.spec = spec
        self.game = spec.game
        self.rng = rng
        self.exhaustive = exhaustive
        self.coverage = Coverage()
        self.full_deck: Counter[str] | None = None

    def __call__(self, before, played: Played, events) -> None:
        game, state, names = self.game, played.state, played.names
        self.coverage.steps += 1
        if self.full_deck is None:
            self.full_deck = Counter(game.deck(played.created.options))
        cards = self.spec.cards(state)
        if cards is not None:
            assert cards == self.full_deck, "every card of the deck is somewhere, once"
        views = {viewer: game.view(state, viewer) for viewer in viewers(played.n)}
        for view in views.values():
            json.dumps(view)
        assert views[PUBLIC]["hands"] == {}
        totals = views[ALL]["totals"]
        assert list(totals) == names and all(isinstance(t, int) for t in totals.values())
        to_act = game.to_act(state)
        assert len(set(to_act)) == len(to_act) and set(to_act) <= set(range(played.n))
        for seat in range(played.n):
            assert set(views[seat]["hands"]) <= {names[seat]}
            self.check_legal(state, seat, to_act)
        for viewer in viewers(played.n):
            assert isinstance(game.render(state, viewer), str)
        self.check_events(before, played, events)
        if game.is_finished(state):
            result = game.result(state)
            assert result is not None and set(result.scores) == set(names)
            assert result.ranks == ranks_from_scores(result.scores, result.higher_is_better)
            assert game.standing(state) == result
        else:
            assert game.result(state) is None
        if events and (game.can_deal(state) or game.is_finished(state)):  # refold at every deal's end
            assert fold(game, played.created, played.events) == state
        self.spec.check_step(Step(self.spec, played, before, events, views))

    def check_legal(self, state, seat: int, to_act: list[int]) -> None:
        game, spec = self.game, self.spec
        legal = game.legal_commands(state, seat)
        assert legal == sorted(legal)
        assert all(c.seat == seat for c in legal)
        if seat in to_act:
            assert legal, "a seat to act always has a legal command"
            if spec.one_to_act:
                assert to_act == [seat]
        else:
            assert legal == [], "only a seat the game waits for has legal commands"
            self.coverage.seats_not_to_act += 1
        for command in legal:  # every legal command reads back from its own words
            assert type(command).parse(seat, command.args()) == command, command.text()
            assert command.text() == " ".join([command.verb(), *command.args()])  # text's fast printers
        sample = legal
        if spec.legal_sample is not None and len(legal) > spec.legal_sample:
            sample = self.rng.sample(legal, spec.legal_sample)
        for command in sample:
            assert accepted(game, state, command), command.text()
            assert spec.parse(seat, command.text()) == command  # a command reads back from its text
        if self.rng.random() < self.exhaustive:
            self.coverage.exhaustive += 1
            legal_set = set(legal)
            lazy = Legal(game, state, seat)  # what bots get: membership checks one command alone
            for command in spec.candidates(state, seat, self.rng):
                assert accepted(game, state, command) == (command in legal_set) == (command in lazy), command.text()
            assert not lazy.listed and list(lazy) == legal

    def check_events(self, before, played: Played, events) -> None:
        """Each event: its codecs round-trip; a derived event is what ``automatic`` gives
        for the state before it, an action event reads back as the command that records
        it (what ``audit recheck`` relies on); every viewer gets a description and a
        redaction of the same type."""
        game, state = self.game, before
        for e in events:
            data = msgspec.json.decode(to_json(e))
            assert to_json(from_builtins(e.type_tag(), e.schema, data)) == to_json(e)
            assert decode(e.type_tag(), e.schema, encode(e)) == e
            if type(e).derived:
                assert game.automatic(state) == [e]
                assert game.command_for(e) is None
                self.coverage.derived += 1
            else:
                assert game.automatic(state) == []
                again = game.command_for(e)
                assert again is not None and game.decide(state, again)[0] == e
                self.coverage.action_kinds.add(type(e))
            assert game.redact(state, e, ALL) == e
            for viewer in viewers(played.n):
                text = game.describe(state, e, viewer)
                assert isinstance(text, str) and text
                redacted = game.redact(state, e, viewer)
                assert type(redacted) is type(e)
                to_json(redacted)
            state = game.evolve(state, e)
        assert state == played.state


def check_played(spec: GameSpec, played: Played) -> None:
    assert fold(spec.game, played.created, played.events) == played.state
    spec.check_match(played)


HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]


@pytest.mark.parametrize("name, n, mode", MODES, ids=[f"{g}-{n}-{m}" for g, n, m in MODES])
def test_played_matches_keep_every_invariant(name, n, mode):
    """Drawn moves (``drawn``), the heuristic bots (``heuristic``) or both (``mixed``)."""
    spec = SPECS[name]
    how: Mode = spec.modes[mode]

    def match(data):
        seed = data.draw(st.integers(0, 2**31), label="seed")
        created = spec.created(n, seed, how.options)
        choices = DrawnChoices(data, seed, how.seats(n))
        checker = Checker(spec, random.Random(seed), how.exhaustive)
        played = play(spec.game, created, choices, deals=how.deals, max_commands=how.max_commands,
                      per_deal=how.per_deal, check=checker)
        check_played(spec, played)
        if how.check_end is not None:
            how.check_end(played)

    match.__name__ = f"match_{name}_{n}_{mode}".replace("-", "_")  # its own entry in hypothesis's example database
    settings(max_examples=how.examples, deadline=None, suppress_health_check=HEALTH)(given(st.data())(match))()


@pytest.mark.parametrize("name", SPECS)
def test_reference_match_covers_the_contract(name):
    """One fixed-seed bot match under every check, which must exercise them: seats not
    to act refused, several kinds of action read back, derived events recomputed."""
    spec = SPECS[name]
    run = spec.reference
    checker = Checker(spec, random.Random(run.seeds[0]), exhaustive=0.0)
    played = play_bots(spec, run, run.seeds[0], check=checker)
    check_played(spec, played)
    coverage = checker.coverage
    assert coverage.steps and coverage.seats_not_to_act >= coverage.steps // 2  # most steps refused a waiting seat
    # several kinds of action read back (every kind a small game records: a deal and its one action)
    assert DealStarted in coverage.action_kinds
    assert len(coverage.action_kinds) >= min(3, 1 + len(spec.game.recorded_commands))
    spec.check_reference(played, coverage)


@pytest.mark.parametrize("name", SPECS)
def test_deterministic_same_seed_same_events(name):
    spec = SPECS[name]
    run = spec.deterministic
    a = play_bots(spec, run, run.seeds[0])
    b = play_bots(spec, run, run.seeds[0])
    assert len(a.events) > 20
    assert [encode(e) for e in a.events] == [encode(e) for e in b.events]


@pytest.mark.slow
@pytest.mark.parametrize("name", SPECS)
def test_bot_matches_finish(name):
    """Whole matches between bots end, with a result that agrees with the state."""
    spec = SPECS[name]
    runs = spec.finishing_runs()
    finished = 0
    for run, seed in runs:
        played = play_bots(spec, run, seed)
        if not spec.game.is_finished(played.state):
            continue
        finished += 1
        check_played(spec, played)
        result = spec.game.result(played.state)
        assert result is not None and set(result.scores) == set(played.names)
        assert result.ranks == ranks_from_scores(result.scores, result.higher_is_better)
        spec.check_finished(played)
    assert finished >= (len(runs) if spec.min_finished is None else spec.min_finished)


def test_every_game_and_player_count_is_covered():
    """Every installed game, by its own module in ``gamespecs`` or by the contract alone."""
    from kartludo.engine.registry import game_names, get_game

    assert sorted(SPECS) == sorted(game_names())
    for name, spec in SPECS.items():
        assert spec.player_counts == get_game(name).player_counts
        assert set(spec.modes) == {"drawn", "heuristic", "mixed"}


@pytest.mark.parametrize("name, n", TABLES)
def test_a_seat_sees_exactly_its_own_dealt_cards_in_the_deal_event(name, n):
    """``redact`` gets the state before the event, so a seat's view of a ``DealStarted``
    shows exactly the cards it was dealt (plus what everyone sees, such as Uxinjo's
    revealed card), whatever the table size; the public and the other seats see none
    of them."""
    from kartludo.engine.base import StartDeal, seeded_deck

    spec = SPECS[name]
    game = spec.game
    created = spec.created(n, 11, {})
    before = game.start(created)
    deck, key = seeded_deck(game.deck(created.options), 11, 1)
    [dealt] = game.check(before, StartDeal(deck=deck, shuffle=key))
    after = game.evolve(before, dealt)

    def seen(viewer):
        return Counter(c for c in game.redact(before, dealt, viewer).deck if c != "??")

    public = seen(PUBLIC)
    assert seen(ALL) == Counter(deck)
    names = list(created.players)
    for seat in range(n):
        own = Counter(game.view(after, seat)["hands"][names[seat]])
        assert own, "a seat is dealt cards"
        assert seen(seat) == own + public, f"{name}, {n} players: seat {seat}"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_phase_enum_is_a_str_enum_whose_between_and_end_members_equal_the_shared_names(name):
    """``Game.is_finished`` and ``can_deal`` compare a state's phase with the shared
    strings directly (no ``.value``): that holds only for ``str`` enums that have both."""
    import enum

    from kartludo.engine.base import FINISHED, WAITING_DEAL
    from kartludo.engine.registry import get_game
    from kartludo.events.match import MatchCreated

    game = get_game(name)
    players = [f"p{i}" for i in range(game.player_counts[0])]
    state = game.start(MatchCreated(game=name, ruleset=game.ruleset, players=players, seed=1))
    phase = type(state.phase)
    assert issubclass(phase, str) and issubclass(phase, enum.Enum)
    assert {phase(WAITING_DEAL), phase(FINISHED)} <= set(phase)
    assert phase(FINISHED) == FINISHED and phase(WAITING_DEAL) != FINISHED
    assert not game.is_finished(state) and game.can_deal(state)
