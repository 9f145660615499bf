"""Every rule an engine can cite resolves to a section of its game's rules page.

Two nets: the engine sources, read as code (every string with a ``§`` and every rule
handed to ``IllegalCommand``), and the engines at work (every refusal of every
candidate command along random matches, every ruling and every settlement note).
"""

from __future__ import annotations

import ast
import importlib
import random
from pathlib import Path

import pytest

from kartludo.app.casebook import rulebook
from kartludo.engine.base import IllegalCommand, StartDeal, seeded_deck
from kartludo.engine.bots import HEURISTIC, RandomBot, bots_of
from kartludo.engine.registry import game_names, get_game
from kartludo.events.match import MatchCreated, Ruling

ROOT = Path(__file__).resolve().parents[2]
#: engine package -> game name, for every installed game
GAMES = {name.replace("-", "_"): name for name in game_names()}


def unresolved(citation: str, game: str) -> list[str]:
    """What in ``citation`` does not name a section of ``game``'s page ([] when all do)."""
    found = rulebook.citations(citation, game)
    if not found:
        return [f"{citation!r} cites no section"]
    bad = [f"§{c.text[:30]!r} in {citation!r}" for c in found if c.section is None]
    if rulebook.game_of(citation, game) != game:
        bad.append(f"{citation!r} cites another game's page")
    return bad


def test_every_rules_page_numbers_its_sections():
    assert rulebook.page_names() == sorted(game_names())  # a page per game, and no other
    labels = {g: set(rulebook.sections(g)) for g in rulebook.page_names()}
    assert {"1", "2", "2.1", "2.2", "2.3", "3", "3.1", "4", "4.1", "4.2", "5", "6", "6.1"} <= labels["uxinjo"]
    assert {"1", "2", "3", "4", "5", "Commands"} <= labels["laugavatnsmanni"]
    assert {"Cards and seats", "Deal", "Terms", "1", "2", "3", "4", "5", "6", "7"} <= labels["hakamo"]
    assert {"Cards, players, trumps", "Deal", "Play", "End of a deal"} <= labels["svoi-kozyri"]
    assert rulebook.sections("uxinjo")["2.2"].anchor == "s2-2"
    assert rulebook.sections("svoi-kozyri")["End of a deal"].anchor == "s-end-of-a-deal"


def test_citations_resolve_to_the_longest_label():
    [one] = rulebook.citations("uxinjo §2.2 B (RULING: the taken card may not be discarded)")
    assert one.game == "uxinjo" and one.section.label == "2.2"
    two = rulebook.citations("uxinjo §2.3 3, §6.1 (invalid munt = foul)")
    assert [c.section.label for c in two] == ["2.3", "6.1"]
    assert rulebook.citations("RULING §Terms mati: the engine records matatis", "hakamo")[0].section.label == "Terms"
    assert rulebook.link("svoi-kozyri §Play beat (a higher card)") == "/ui/rules/svoi-kozyri#s-play"
    assert rulebook.link("RULING §4: the declarer leads", "laugavatnsmanni") == "/ui/rules/laugavatnsmanni#s4"
    assert rulebook.link("series deadline: the deal in progress ends first") is None
    assert unresolved("uxinjo §9.9 (no such section)", "uxinjo") == [
        "§'9.9 (no such section)' in 'uxinjo §9.9 (no such section)'"]
    assert unresolved("deck", "uxinjo") == ["'deck' cites no section"]
    # a subsection the page lacks does not fall back to its parent (§3.7 is not §3)
    assert unresolved("uxinjo §3.7 (eltiri)", "uxinjo") == ["§'3.7 (eltiri)' in 'uxinjo §3.7 (eltiri)'"]
    assert rulebook.citations("uxinjo §3. Jx cards")[0].section.label == "3"  # a full stop ends a sentence


def _engine_strings(package: Path) -> list[tuple[str, int, str]]:
    """(file, line, text) of every string in the package's sources that contains a §
    (an f-string's fixed parts, with ``{}`` where a value goes)."""
    out = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                      and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        inside_fstrings = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        for node in ast.walk(tree):
            if id(node) in docstrings or id(node) in inside_fstrings:
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            elif isinstance(node, ast.JoinedStr):
                text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            else:
                continue
            if "§" in text and "#" not in text[:2]:
                out.append((path.name, node.lineno, text))
    return out


@pytest.mark.parametrize("package", sorted(GAMES))
def test_every_citation_in_the_engine_sources_resolves(package):
    game = GAMES[package]
    strings = _engine_strings(ROOT / "engine" / package)
    assert len(strings) >= 3  # the net works: every game cites at least its deal checker's three (DealRules)
    problems = [f"{f}:{line}: {p}" for f, line, text in strings for p in unresolved(text, game)]
    assert problems == []


@pytest.mark.parametrize("package", sorted(GAMES))
def test_every_rule_handed_to_a_refusal_cites_a_section(package):
    """A refusal's rule is a constant with a §, or a name bound to one; never a bare word."""
    game = GAMES[package]
    rules_module = importlib.import_module(f"kartludo.engine.{package}.rules")  # the rule references
    problems = []
    for path in sorted((ROOT / "engine" / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "IllegalCommand"):
                continue
            rule = node.args[1] if len(node.args) > 1 else next(k.value for k in node.keywords if k.arg == "rule")
            if isinstance(rule, ast.Constant):
                text = rule.value
            elif isinstance(rule, ast.Name) and rule.id.isupper():
                text = getattr(rules_module, rule.id)
            else:
                continue  # a value chosen at run time: the next test meets it
            problems += [f"{path.name}:{node.lineno}: {p}" for p in unresolved(text, game)]
    assert problems == []


def _deck_refusals(game) -> list[str]:
    state = game.start(MatchCreated(game=game.name, ruleset=game.ruleset, players=_players(game), seed=1,
                                    options=_options(game)))
    with pytest.raises(IllegalCommand) as info:
        game.decide(state, StartDeal(deck=tuple(game.deck(_options(game))[:-1])))
    return [info.value.rule]


def _players(game) -> list[str]:
    return [f"p{i}" for i in range(game.player_counts[-1])]


def _options(game) -> dict:
    return {k: o.default for k, o in game.options.items()}


@pytest.mark.parametrize("game_name", sorted(GAMES.values()))
def test_every_rule_an_engine_cites_at_work_resolves(game_name):
    """Random matches: at every few steps each seat tries every candidate command; every
    refusal's rule, every ruling's rule and every settlement note must resolve."""
    game = get_game(game_name)
    # every command a seat could type, not only those worth checking in the phase
    check, candidates = game.check, game.every_candidate
    rng = random.Random(11)
    seen: dict[str, str] = {}
    heuristic = bots_of(game)[HEURISTIC]
    for seed, bot in ((1, RandomBot()), (2, heuristic), (3, heuristic)):
        created = MatchCreated(game=game.name, ruleset=game.ruleset, players=_players(game), seed=seed,
                               options=_options(game))
        state = game.start(created)
        for step in range(2500):
            if game.is_finished(state):
                break
            if step % 3 == 0:
                for seat in [*range(len(created.players)), len(created.players)]:  # and a seat that does not exist
                    for command in candidates(state, seat) if seat < len(created.players) else candidates(state, 0)[:3]:
                        command = type(command)(**{**{f: getattr(command, f) for f in command.__struct_fields__},
                                                   "seat": seat})
                        try:
                            check(state, command)
                        except IllegalCommand as refused:
                            seen.setdefault(refused.rule, refused.message)
            if game.can_deal(state):
                deck, shuffle = seeded_deck(game.deck(created.options), seed, game.deal_number(state) + 1)
                command = StartDeal(deck=deck, shuffle=shuffle)
                try:
                    check(state, StartDeal(deck=deck[:-1]))
                except IllegalCommand as refused:
                    seen.setdefault(refused.rule, refused.message)
            else:
                seat = rng.choice(game.to_act(state))
                command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
            for event in game.decide(state, command):
                if isinstance(event, Ruling):
                    seen.setdefault(event.rule, "a ruling")
                for note in getattr(event, "rulings", None) or []:
                    seen.setdefault(note, "a settlement note")
                state = game.evolve(state, event)
        for command in candidates(state, 0):  # after the match: "the match is over"
            try:
                check(state, command)
            except IllegalCommand as refused:
                seen.setdefault(refused.rule, refused.message)
    for rule in _deck_refusals(game):
        seen.setdefault(rule, "a bad deck")
    assert len(seen) >= 3  # the net works: at least a bad deck, a seat out of turn and one more refusal
    problems = [f"{p} (from: {why})" for rule, why in seen.items() for p in unresolved(rule, game_name)]
    assert problems == []


def _unreadable(game) -> list[tuple[str, list[str]]]:
    """Commands ``game`` cannot read: an unknown verb, each verb with a word too many
    (and one too few, when it takes any), and each of its arguments malformed."""
    from kartludo.engine.commands import Word

    out: list[tuple[str, list[str]]] = [("nosuchverb", [])]
    for cls in game.verbs():
        example = cls.example().split()[1:]
        out.append((cls.verb(), [*example, *example, "extra"]))
        if cls.arguments and not cls.arguments[-1].many:
            out.append((cls.verb(), example[:-1]))
        for i in range(len(example)):
            arg = cls.arguments[min(i, len(cls.arguments) - 1)]
            if not isinstance(arg, Word):  # a name any word reads as; the rules judge it (citing their section)
                out.append((cls.verb(), [*example[:i], "ZZ:sideways", *example[i + 1:]]))
    return out


@pytest.mark.parametrize("game_name", sorted(GAMES.values()))
def test_every_command_a_game_cannot_read_cites_its_commands_section(game_name):
    """Issue 38: argument errors named no rule, while every other refusal does. Each
    cites the game's commands section, which its rules page has."""
    from kartludo.engine.base import COMMANDS_SECTION, BadCommand

    game = get_game(game_name)
    rule = f"{game_name} §{COMMANDS_SECTION}"
    assert unresolved(rule, game_name) == []
    refused = []
    for verb, words in _unreadable(game):
        with pytest.raises(BadCommand) as info:
            game.parse_command(0, verb, words)
        refused.append(info.value)
    assert len(refused) > len(game.verbs())
    assert {e.rule for e in refused} == {rule}
    assert all(str(e) == f"{e.message} [{rule}]" for e in refused)


@pytest.mark.parametrize("game_name, verb, words, message", [
    ("hakamo", "declare", ["Xy"], "declare: 'Xy' is not a seat (Or, Su, Ok, No) or malhakama"),
    ("hakamo", "bid", ["x"], "bid: 'x' is not a number"),
    ("uxinjo", "eltiri", [], "eltiri takes one card, e.g. eltiri PJ"),
    ("hakamo", "play", ["ZZ"], None),
    ("laugavatnsmanni", "play", ["ZZ"], None),
    ("svoi-kozyri", "play", ["ZZ"], None),
])
def test_the_audits_unreadable_commands_cite_the_commands_section(game_name, verb, words, message):
    from kartludo.engine.base import BadCommand

    game = get_game(game_name)
    with pytest.raises(BadCommand) as info:
        game.parse_command(0, verb, words)
    assert info.value.rule == f"{game_name} §Commands"
    assert info.value.message == message if message else info.value.message.startswith("play: 'ZZ' is not ")
