"""Scripted Uxinjo matches through the real pipeline (store, MatchService), for the
replay, audit, projection and series tests."""

from __future__ import annotations

from engine.uxinjo_helpers import build_deck

from kartludo.app.matches.pipeline import MatchService

PLAYERS = ["ann", "bob", "cy"]
FILLERS = ["B6", "B7", "B8"]  # stock cards nobody wants
BAD_HAND = ["R1", "R3", "R5", "G2", "G6"]  # + G9: no two combinations
WIN_HAND = ["R1", "R2", "R3", "G4", "B4"]  # + R4: R1-R2-R3 and a trio of 4s = 3 points


def _order(dealer: int) -> list[int]:
    return [dealer, (dealer + 1) % 3, (dealer + 2) % 3]


def _play_up_to(svc: MatchService, mid: str, dealer: int, seat: int, players: list[str]) -> None:
    """Everyone before ``seat`` (from the dealer) draws a filler and discards it; the
    other two pass each window."""
    for s in _order(dealer):
        if s == seat:
            return
        card = svc.load(mid).state.stock[0]
        svc.act(mid, players[s], "draw")
        svc.act(mid, players[s], "discard", [card])
        svc.act(mid, players[(s + 2) % 3], "pass")
        svc.act(mid, players[(s + 1) % 3], "pass")


def next_dealer(svc: MatchService, mid: str) -> int:
    match = svc.load(mid)
    return match.game.next_dealer(match.state)


def foul_deal(svc: MatchService, mid: str, seat: int) -> None:
    """``seat`` draws G9 to a hand that forms no two combinations and declares munt."""
    players = svc.load(mid).players
    dealer = next_dealer(svc, mid)
    before = _order(dealer).index(seat)
    svc.deal(mid, build_deck(dealer, {seat: BAD_HAND}, stock=FILLERS[:before] + ["G9"]))
    _play_up_to(svc, mid, dealer, seat, players)
    svc.act(mid, players[seat], "draw")
    svc.act(mid, players[seat], "munt")


def stock_win_deal(svc: MatchService, mid: str, seat: int) -> None:
    """``seat`` draws R4 to R1 R2 R3 G4 B4 and wins on the stock (3 points)."""
    players = svc.load(mid).players
    dealer = next_dealer(svc, mid)
    before = _order(dealer).index(seat)
    svc.deal(mid, build_deck(dealer, {seat: WIN_HAND}, stock=FILLERS[:before] + ["R4"]))
    _play_up_to(svc, mid, dealer, seat, players)
    svc.act(mid, players[seat], "draw")
    svc.act(mid, players[seat], "munt")


def win_match(svc: MatchService, mid: str, seat: int) -> None:
    """``seat`` wins on the stock deal after deal until the match is over (two wins from
    an untouched start: both of its markers reach finito)."""
    while not svc.load(mid).over:
        stock_win_deal(svc, mid, seat)


def foul_then_void_win(svc: MatchService, players: list[str] | None = None, series: str | None = None) -> str:
    """A match: ann fouls in deal 1, then wins on the stock in deal 2 (scoring
    nothing: the win lifts the penalty). Returns the match id."""
    mid = svc.create("uxinjo", players or PLAYERS if series is None else None, seed=1, series=series)
    foul_deal(svc, mid, 0)
    stock_win_deal(svc, mid, 0)
    return mid
