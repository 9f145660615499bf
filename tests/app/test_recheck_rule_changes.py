"""`audit recheck` on a database written before the rule changes of issue 15.

The matches below are written the way the engine before the change recorded them:
every action it accepted is appended as it was (today's engine decides the actions
both versions accept; the now-illegal ones are written as the old engine wrote them),
and the engine's own decisions, which the change leaves alone, are what ``automatic``
makes. Recheck must name exactly the recorded actions today's rules refuse, with the
rulings and settlements of their deal that followed them, and nothing else.
"""

from __future__ import annotations

from typing import Any

from engine.laugavatnsmanni_helpers import build_deck as lv_deck
from engine.uxinjo_helpers import build_deck as ux_deck

from kartludo.app.audit.recheck import recheck
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.engine.base import StartDeal
from kartludo.engine.laugavatnsmanni.rules import R_GREAT_UNUSED
from kartludo.engine.registry import get_game
from kartludo.engine.uxinjo.rules import R_TAKEN
from kartludo.events.base import Event
from kartludo.events.laugavatnsmanni import Held
from kartludo.events.match import MatchCreated
from kartludo.events.uxinjo import Discarded

OR, SU, OK = 0, 1, 2
ANN, BOB, CY = 0, 1, 2


class OldMatch:
    """A match as the engine before the change recorded it."""

    def __init__(self, game: str, ruleset: str, options: dict[str, Any]) -> None:
        self.game = get_game(game)
        self.created = MatchCreated(game=self.game.name, ruleset=ruleset, players=["ann", "bob", "cy"], seed=1,
                                    options=options)
        self.state = self.game.start(self.created)
        self.events: list[Event] = [self.created]

    def _fold(self, events: list[Event]) -> None:
        for e in events:
            self.state = self.game.evolve(self.state, e)
        self.events.extend(events)

    def deal(self, deck: tuple[str, ...]) -> None:
        self._fold(self.game.decide(self.state, StartDeal(deck=deck)))

    def act(self, seat: int, verb: str, *args: str) -> None:
        """An action both engines accept: decided by today's engine."""
        self._fold(self.game.decide(self.state, self.game.parse_command(seat, verb, list(args))))

    def old_only(self, event: Event) -> None:
        """An action only the old engine accepted, and what the rules then made happen."""
        self._fold([event])
        while more := self.game.automatic(self.state):
            self._fold(more)

    def play_out(self) -> None:
        while self.game.phase(self.state) == "play":
            seat = self.game.to_act(self.state)[0]
            self._fold(self.game.decide(self.state, self.game.legal_commands(self.state, seat)[0]))

    def write(self, store, match_id: str) -> None:
        store.append(stream_of(match_id), self.events, 0)


def _uxinjo_take_eltiri(discard_again: bool, claimant_hand: list[str]) -> OldMatch:
    """Or discards G9; Su takes it, exposes PJ (drawing B7) and discards G9 again, or B7."""
    m = OldMatch("uxinjo", "uxinjo-1", {"needed_base": 2})
    m.deal(ux_deck(OR, hands={SU: ["PJ", "R4", "R6", "B1", "B2"], OK: claimant_hand}, stock=["G9", "B7"]))
    m.act(OR, "draw")
    m.act(OR, "discard", "G9")
    m.act(OK, "pass")
    m.act(SU, "take")
    m.act(SU, "eltiri", "PJ")
    if discard_again:
        m.old_only(Discarded(seat=SU, card="G9"))
    else:
        m.act(SU, "discard", "B7")
    return m


def _laugavatnsmanni_hold(contract: str) -> OldMatch:
    """Bob chose hearts in deal 1; in deal 4 he chooses spades, cy calls great spades and
    bob holds ``contract``; the deal is played out and scored."""
    m = OldMatch("laugavatnsmanni", "laugavatnsmanni-1", {"target_points": 99, "max_deals": 18})
    for chosen in ("hearts", "nullo", "nullo"):
        m.deal(lv_deck(m.game.next_dealer(m.state)))
        chooser = m.game.to_act(m.state)[0]
        m.act(chooser, "contract", chosen)
        if chosen != "nullo":
            m.act((chooser + 1) % 3, "pass")
            m.act((chooser + 2) % 3, "pass")
        m.act(chooser, "exchange")
        m.play_out()
    m.deal(lv_deck(m.game.next_dealer(m.state)))
    m.act(BOB, "contract", "spades")
    m.act(CY, "great", "spades")
    m.act(ANN, "pass")
    if contract == "grand":
        m.act(BOB, "hold", "grand")
    else:
        m.old_only(Held(seat=BOB, contract=contract))
    m.act(BOB, "exchange")
    m.play_out()
    return m


def _version_of(m: OldMatch, tag: str, last: bool = True) -> int:
    versions = [i + 1 for i, e in enumerate(m.events) if type(e).type_tag() == tag]
    return versions[-1] if last else versions[0]


def test_recheck_names_exactly_the_outcomes_resting_on_moves_the_rules_now_refuse(store, k):
    won_on_it = _uxinjo_take_eltiri(True, ["G7", "G8", "R1", "R2", "R3"])  # Ok claims G9: a valid munt
    won_on_it.act(OK, "munt")
    won_on_it.act(OR, "pass")
    fouled_on_it = _uxinjo_take_eltiri(True, ["G7", "G8", "R1", "R2", "B5"])  # Ok claims G9: invalid
    fouled_on_it.act(OK, "munt")
    fouled_on_it.act(OR, "pass")
    nothing_yet = _uxinjo_take_eltiri(True, ["G7", "G8", "R1", "R2", "R3"])  # both pass: the deal goes on
    nothing_yet.act(OK, "pass")
    nothing_yet.act(OR, "pass")
    legal_then = _uxinjo_take_eltiri(False, ["G7", "G8", "R1", "R2", "R3"])  # B7 discarded: legal then and now
    legal_then.act(OK, "pass")
    legal_then.act(OR, "pass")
    held_chosen = _laugavatnsmanni_hold("hearts")
    held_unchosen = _laugavatnsmanni_hold("grand")
    for name, m in [("won", won_on_it), ("fouled", fouled_on_it), ("nothing", nothing_yet),
                    ("legal", legal_then), ("held", held_chosen), ("heldok", held_unchosen)]:
        m.write(store, name)
    assert [type(e).type_tag() for e in won_on_it.events[-3:]] == ["uxinjo.munt", "uxinjo.pass", "uxinjo.settled"]
    assert [type(e).type_tag() for e in fouled_on_it.events[-2:]] == ["uxinjo.foul", "uxinjo.deal-drawn"]
    today = MatchService(store).create("uxinjo", ["ann", "bob", "cy"], seed=3, match_id="today")
    MatchService(store).deal(today)

    count, diffs, notes = recheck(store)

    assert count == 7
    assert sorted(notes) == sorted(
        [f"match {mid} was recorded under uxinjo-1; today's engine is uxinjo-3"
         for mid in ("won", "fouled", "nothing", "legal")]
        + [f"match {mid} was recorded under laugavatnsmanni-1; today's engine is laugavatnsmanni-2"
           for mid in ("held", "heldok")])
    by_match = {d.match: d for d in diffs}
    assert len(diffs) == 4 and sorted(by_match) == ["fouled", "held", "nothing", "won"]
    for mid, m in (("won", won_on_it), ("fouled", fouled_on_it), ("nothing", nothing_yet)):
        d = by_match[mid]
        assert d.recorded == "uxinjo.discarded (discard G9)" and d.version == _version_of(m, "uxinjo.discarded")
        assert d.refused == f"G9 was taken from the discard pile this turn: discard another card [{R_TAKEN}]"
    positions = {mid: {r.version: r.position for r in store.read_stream(stream_of(mid))} for mid in by_match}

    def cite(mid: str, tag: str, version: int) -> str:
        return f"{tag} v{version} (#{positions[mid][version]})"

    assert by_match["won"].outcomes == [cite("won", "uxinjo.settled", _version_of(won_on_it, "uxinjo.settled"))]
    assert by_match["fouled"].outcomes == [
        cite("fouled", "uxinjo.foul", _version_of(fouled_on_it, "uxinjo.foul")),
        cite("fouled", "uxinjo.deal-drawn", _version_of(fouled_on_it, "uxinjo.deal-drawn")),
    ]
    assert by_match["nothing"].outcomes == []
    held = by_match["held"]
    assert held.recorded == "laugavatnsmanni.hold (hold hearts)"
    assert held.refused.endswith(f"[{R_GREAT_UNUSED}]") and "already chose hearts" in held.refused
    assert held.outcomes == [cite("held", "laugavatnsmanni.scored", _version_of(held_chosen, "laugavatnsmanni.scored"))]

    out = k("audit", "recheck", code=1)
    lines = out.splitlines()
    assert sum(line.startswith("DIFFERS ") for line in lines) == 4
    assert sum(line.startswith("note: ") for line in lines) == 6
    assert lines[-1] == "7 matches rechecked, 4 differences"
    won_line = next(line for line in lines if line.startswith("DIFFERS match won "))
    assert "which today's engine refuses: G9 was taken from the discard pile this turn" in won_line
    assert won_line.endswith("the deal's outcome rests on it: " + by_match["won"].outcomes[0])
    assert any(line.startswith("DIFFERS match nothing ")
               and line.endswith("no ruling or settlement has followed it yet") for line in lines)
    assert k("audit", "recheck", "legal") == (
        "note: match legal was recorded under uxinjo-1; today's engine is uxinjo-3\n"
        "1 match rechecked, 0 differences\n")


def test_recheck_does_not_list_a_ruling_that_differs_only_in_wording(store):
    """A foul recorded with an older citation and explanation (the effect said "transfers
    to Or …" before names came first) has today's outcome: recheck notes it, lists no
    difference; a foul whose outcome differs (another penalty count) is listed."""
    import msgspec

    from kartludo.events.uxinjo import Foul

    def with_foul(rule: str | None, reason: str | None, effect: dict[str, Any]) -> OldMatch:
        m = _uxinjo_take_eltiri(False, ["G7", "G8", "R1", "R2", "B5"])  # Ok claims B7: an invalid munt
        m.act(OK, "munt")
        m.act(OR, "pass")
        i = next(i for i, e in enumerate(m.events) if isinstance(e, Foul))
        foul = m.events[i]
        m.events[i] = msgspec.structs.replace(foul, rule=rule or foul.rule,
                                              facts={**foul.facts, "reason": reason or foul.facts["reason"]},
                                              effect={**foul.effect, **effect})
        return m

    with_foul("uxinjo §6.1 (as cited then)", "the cards were no two sets",
              {"scoring": "transfers to Ok are void until 1 valid munt"}).write(store, "reworded")
    with_foul(None, None, {"penalties_after": 2}).write(store, "other")

    count, diffs, notes = recheck(store)

    assert [d.match for d in diffs] == ["other"] and diffs[0].fields == {"effect": [
        {**diffs[0].fields["effect"][1], "penalties_after": 2}, diffs[0].fields["effect"][1]]}
    assert any(n.startswith("match reworded: 1 ruling recorded in other words") for n in notes)
