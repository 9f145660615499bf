"""The scripted deals the playthrough files record, taken from the golden tests.

Each script drives a scripted table (``tests/scripted.py``) with commands only and
returns it; its ``commands`` and ``created`` are what a playthrough file replays. A
script may use any of the golden tests' helpers, but nothing it does besides
commands reaches the file (the generator checks that the replay gives the same events).
"""

from __future__ import annotations

from collections.abc import Callable

from scripted import ScriptedTable


def uxinjo_levu_claims_and_a_foul() -> ScriptedTable:
    """Deal 1: Or declares levu, Su's claim fails the raised points needed, Ok's trio wins
    (test_levu_can_make_one_of_two_claims_invalid). Deal 2: Su declares an invalid munt:
    a foul, a penalty, and the deal is drawn (foul_deal)."""
    from test_uxinjo_golden import foul_deal
    from uxinjo_helpers import OK, OR, SU, Table, build_deck

    t = Table()
    t.deal(build_deck(OR, {SU: ["G7", "G8", "R1", "R2", "R3"], OK: ["R9", "B9", "R4", "R5", "R6"]}, stock=["G9"]))
    t.act(OR, "levu")
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(SU, "munt")
    t.act(OK, "munt")
    foul_deal(t, SU)
    return t


def uxinjo_eltiri_and_a_taken_discard() -> ScriptedTable:
    """Or exposes AJ for a replacement, discards it, Ok passes and Su takes it and munts:
    Or pays for the discard and for the exposed AJ (test_e_ajx_liability_on_a_discard_win,
    with Su taking the discard on its own turn)."""
    from uxinjo_helpers import OK, OR, SU, Table, build_deck

    t = Table()
    t.deal(build_deck(OR, {OR: ["AJ", "B1", "B2", "B5", "B7"], SU: ["G7", "G8", "R1", "R2", "R3"]}, stock=["R5", "G9"]))
    t.act(OR, "draw")
    t.act(OR, "eltiri", "AJ")
    t.act(OR, "discard", "G9")
    t.act(OK, "pass")
    t.act(SU, "take")
    t.act(SU, "munt")
    return t


def hakamo_deal_a_with_a_kunulo() -> ScriptedTable:
    """Deal A: Or bids 13, exchanges and lays the Kasxetoj, recruits Su as Kunulo for 6,
    declares Su; colour trump, same-number discards cancel, a lead matatis ends it
    (test_deal_a_declared_seat_wrong_loses_with_kunulo_share_and_voids_bonus)."""
    from hakamo_helpers import SU, Table
    from test_hakamo_golden import deal_a

    t = Table()
    deal_a(t, (SU, 6), "Su")
    return t


def hakamo_deal_b_keep_and_malhakama() -> ScriptedTable:
    """Deal B: Or keeps the Kasxetoj unseen, Ok wins the Kunulo auction, Or declares
    malhakama and a trick in which every card cancels ends the deal
    (test_deal_b_keep_all_cancelled_trick_malhakama_right_kunulo_wins)."""
    from hakamo_helpers import NO, OK, OR, SU, Table
    from test_hakamo_golden import DEAL_B

    t = Table()
    t.deal(**DEAL_B)
    t.auction(OR, 13)
    t.act(OR, "keep")
    t.act(OR, "recruit")
    t.act(SU, "bid", "6")
    t.act(OK, "bid", "5")
    t.act(NO, "pass")
    t.act(SU, "pass")
    t.act(OR, "declare", "malhakama")
    t.play("R9 R1 G1 B2")
    t.play("R5 RV G3 B3")
    return t


def laugavatnsmanni_blind_manni_exchange() -> ScriptedTable:
    """Bob chooses spades, both others pass, Bob exchanges 5H and 4S blind with the
    Manni and the sixteen tricks are played out
    (test_blind_manni_exchange_replaces_discards_with_the_top_cards)."""
    from laugavatnsmanni_helpers import ANN, BOB, CY, Table, rounds_deal
    from test_laugavatnsmanni_golden import NORMAL_SPEC

    spec = dict(NORMAL_SPEC)
    spec["S"] = ["102", "120", "102", "012"]
    spec["H"] = ["102", "102", "120", "102"]
    t = Table()
    t.deal(hands=rounds_deal(spec))
    t.act(BOB, "contract", "spades")
    t.act(CY, "pass")
    t.act(ANN, "pass")
    t.act(BOB, "exchange", "5H", "4S")
    t.play_out()
    return t


def laugavatnsmanni_hold_over_two_great_calls() -> ScriptedTable:
    """Bob chooses diamonds, Cy calls great spades, Ann great grand, Bob holds grand
    and makes 14 tricks (test_a_hold_over_two_great_calls)."""
    from laugavatnsmanni_helpers import ANN, BOB, CY, Table, rounds_deal
    from test_laugavatnsmanni_golden import great_spec

    t = Table()
    t.deal(hands=rounds_deal(great_spec("1", ["0", "2"])))
    t.act(BOB, "contract", "diamonds")
    t.act(CY, "great", "spades")
    t.act(ANN, "great", "grand")
    t.act(BOB, "hold", "grand")
    t.act(BOB, "exchange")
    t.play_out()
    return t


def svoi_kozyri_two_players_ladder() -> ScriptedTable:
    """Two players beat up the ladder with their own trumps: deal 1 is drawn on a
    last-card beat, deal 2 lost (test_two_players_deal_sixes_and_a_one_card_draw)."""
    from svoi_kozyri_helpers import Table
    from test_svoi_kozyri_golden import ANN, BOB, LADDER_ANN, LADDER_BOB, play_ladder

    t = Table(2, dealer=BOB, trumps=["S", "H"], deals=3)
    t.deal({ANN: LADDER_ANN, BOB: LADDER_BOB})
    play_ladder(t)
    t.deal({ANN: [c if c != "AS" else "AC" for c in LADDER_ANN], BOB: [c if c != "AC" else "AS" for c in LADDER_BOB]})
    play_ladder(t, last_bob="AS")
    return t


def svoi_kozyri_three_players_last_card_beat() -> ScriptedTable:
    """Three players: ann beats with her last card and leaves, bob plays a free card on
    the kept pile, and cy's last card beats: a draw
    (test_three_players_last_card_beat_frees_the_next_player)."""
    from svoi_kozyri_helpers import last_card_beat_deal
    from test_svoi_kozyri_golden import ANN, BOB, CY

    t, _ = last_card_beat_deal()
    t.act(ANN, "play", "TS")
    t.act(BOB, "play", "QS")
    t.play(CY, "JD", "AD")
    t.act(BOB, "play", "JH")
    t.act(BOB, "play", "KS")
    return t


#: file name (without .json) -> script
SCRIPTS: dict[str, Callable[[], ScriptedTable]] = {
    "uxinjo-levu-claims-and-a-foul": uxinjo_levu_claims_and_a_foul,
    "uxinjo-eltiri-and-a-taken-discard": uxinjo_eltiri_and_a_taken_discard,
    "hakamo-deal-a-with-a-kunulo": hakamo_deal_a_with_a_kunulo,
    "hakamo-deal-b-keep-and-malhakama": hakamo_deal_b_keep_and_malhakama,
    "laugavatnsmanni-blind-manni-exchange": laugavatnsmanni_blind_manni_exchange,
    "laugavatnsmanni-hold-over-two-great-calls": laugavatnsmanni_hold_over_two_great_calls,
    "svoi-kozyri-two-players-ladder": svoi_kozyri_two_players_ladder,
    "svoi-kozyri-three-players-last-card-beat": svoi_kozyri_three_players_last_card_beat,
}
