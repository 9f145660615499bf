"""Scripted Svoi Kozyri tables for tests: explicit decks, commands by CLI verb."""

from __future__ import annotations

from scripted import ScriptedTable

from kartludo.engine.base import StartDeal
from kartludo.engine.french import DECK_36
from kartludo.engine.svoi_kozyri import SVOI_KOZYRI
from kartludo.engine.svoi_kozyri.rules import first_dealer
from kartludo.events.base import Event
from kartludo.events.match import MatchCreated

NAMES = ["ann", "bob", "cy", "dan"]
G = SVOI_KOZYRI


def build_deck(n: int, dealer: int, hands: dict[int, list[str]]) -> tuple[str, ...]:
    """A 36-card deck (top first) dealing ``hands`` (seat -> up to 36/n cards) when
    ``dealer`` deals to ``n`` players; other places get the unused cards in the
    canonical order."""
    deck: list[str | None] = [None] * 36
    pool = set(DECK_36)
    for seat, cards in hands.items():
        slots = [i for i in range(36) if (dealer + 1 + i) % n == seat]
        assert len(cards) <= len(slots), f"seat {seat} gets only {len(slots)} cards"
        for i, card in zip(slots, cards):
            assert card in pool, f"{card} used twice or not a card"
            pool.remove(card)
            deck[i] = card
    rest = iter(c for c in DECK_36 if c in pool)
    return tuple(c if c is not None else next(rest) for c in deck)


# A three-player deal (cy deals; ann spades, bob hearts, cy diamonds, clubs nobody's)
# in which everybody beats with the own trump and ann runs out by beating with her
# last card: ``last_card_beat_deal`` plays it up to that beat (ann's TS).
ANN3 = ["6S", "7S", "8S", "9S", "TS", "6C", "7C", "8C", "9C", "TC", "6H", "6D"]
BOB3 = ["7H", "8H", "9H", "TH", "JH", "JC", "QC", "KC", "AC", "JS", "QS", "KS"]
CY3 = ["7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "AS", "QH", "KH", "AH"]
ROUNDS3 = [  # bob beats, adds; cy beats, adds; ann beats, adds
    ("6H", "JC", "6D", "QH", "6S", "7C"),
    ("7H", "QC", "7D", "KH", "7S", "8C"),
    ("8H", "KC", "8D", "AH", "8S", "9C"),
    ("9H", "AC", "9D", "QD", "9S", "TC"),
]


def last_card_beat_deal() -> tuple[Table, list[Event]]:
    """The deal above, played up to (not including) ann's last-card beat with TS."""
    t = Table(3, dealer=2, trumps=["S", "H", "D"])
    dealt = t.deal({0: ANN3, 1: BOB3, 2: CY3})
    t.act(0, "play", "6C")
    for bob_beat, bob_extra, cy_beat, cy_extra, ann_beat, ann_extra in ROUNDS3:
        t.play(1, bob_beat, bob_extra)
        t.play(2, cy_beat, cy_extra)
        t.play(0, ann_beat, ann_extra)
    t.play(1, "TH", "JS")
    t.play(2, "TD", "KD")
    assert t.hand(0) == ["TS"]
    return t, dealt


def seed_for_dealer(n: int, dealer: int) -> int:
    """A match seed whose first dealer (drawn from the seed) is ``dealer``."""
    return next(s for s in range(1000) if first_dealer(s, n) == dealer)


class Table(ScriptedTable):
    game = G

    def __init__(self, n: int = 4, *, dealer: int = 0, trumps: list[str] | None = None, deals: int = 8,
                 seed: int | None = None) -> None:
        super().__init__(MatchCreated(
            game="svoi-kozyri",
            ruleset=G.ruleset,
            players=NAMES[:n],
            seed=seed_for_dealer(n, dealer) if seed is None else seed,
            options={"trumps": trumps or ["S", "H", "D", "C"], "deals": deals},
        ))

    @property
    def n(self) -> int:
        return len(self.created.players)

    def deal(self, hands: dict[int, list[str]] | None = None) -> list[Event]:
        deck = build_deck(self.n, G.next_dealer(self.state), hands or {})
        return self.command(StartDeal(deck=deck))

    def play(self, seat: int, *cards: str) -> list[Event]:
        """One or more cards in a row by ``seat`` (a beat and its extra card)."""
        out: list[Event] = []
        for card in cards:
            out += self.act(seat, "play", card)
        return out

    def hand(self, seat: int) -> list[str]:
        return list(self.state.hands[seat])
