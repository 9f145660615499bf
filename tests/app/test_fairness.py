"""Fair deals on every backend: no default seed (a fresh CSPRNG shuffle per deal), a
commitment to every deck, and `kartludo verify` / `kartludo match check` catching a
deal that is not what it committed to or what its seed gives."""

from __future__ import annotations

import hashlib
import json
import re

import msgspec
import pytest

from kartludo.app.matches.fairness import check_public_deal, commitment, commitment_text, verify_deals
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.engine.base import seeded_deck
from kartludo.engine.jx import JX_DECK
from kartludo.events.base import decode, encode
from kartludo.events.match import RANDOM_SHUFFLE, DealStarted, MatchCreated


@pytest.fixture
def svc(store):
    return MatchService(store)


def deals_of(store, mid):
    return [r.event for r in store.read_stream(stream_of(mid)) if isinstance(r.event, DealStarted)]


def play_out_deal(svc, mid):
    """The running deal played to its end by the heuristic bot."""
    import random

    match = svc.load(mid)
    game, rng = match.game, random.Random(3)
    bot = game.bots()["heuristic"]
    while not (game.can_deal(match.state) or game.is_finished(match.state)):
        seat = game.to_act(match.state)[0]
        svc.execute(mid, svc.play(bot.choose(game, match.state, seat, game.legal_commands(match.state, seat), rng)),
                    actor=match.players[seat])
        match = svc.load(mid)


def test_a_match_without_a_seed_has_none_and_shuffles_each_deal_afresh(svc, store):
    b = svc.create("uxinjo", ["ann", "bob", "cy"])
    svc.deal(b)
    for _ in range(10):  # a first deal that reaches finito ends its match: take one that goes on
        a = svc.create("uxinjo", ["ann", "bob", "cy"])
        assert store.read_stream(stream_of(a))[0].event.seed is None
        svc.deal(a)
        play_out_deal(svc, a)
        if svc.load(a).status == "in_progress":
            break
    svc.deal(a)
    first, second = deals_of(store, a)
    other = deals_of(store, b)[0]
    for deal in (first, second, other):
        assert deal.shuffle == RANDOM_SHUFFLE and sorted(deal.deck) == sorted(JX_DECK)
    # 38 cards: two CSPRNG shuffles coincide with probability ~1e-40
    assert len({tuple(first.deck), tuple(second.deck), tuple(other.deck)}) == 3
    assert svc.state_json(svc.load(a), -1)["seed"] is None


def test_every_deal_commits_to_its_deck_with_a_fresh_salt(svc, store):
    seeded = svc.create("uxinjo", ["ann", "bob", "cy"], seed=5)
    svc.deal(seeded)
    by_hand = svc.create("uxinjo", ["ann", "bob", "cy"])
    svc.deal(by_hand, list(reversed(JX_DECK)))
    random_ = svc.create("uxinjo", ["ann", "bob", "cy"])
    svc.deal(random_)
    deals = [deals_of(store, m)[0] for m in (seeded, by_hand, random_)]
    assert [d.shuffle for d in deals] == ["5:1", None, RANDOM_SHUFFLE]
    for deal in deals:
        assert re.fullmatch(r"[0-9a-f]{32}", deal.salt)
        text = f"{deal.salt}:{' '.join(deal.deck)}"
        assert commitment_text(deal.salt, deal.deck) == text
        assert deal.commitment == commitment(deal.salt, deal.deck) == hashlib.sha256(text.encode()).hexdigest()
    assert len({d.salt for d in deals}) == 3
    # the seeded deck is still exactly the seed's shuffle (reproducible, duplicate play)
    assert deals[0].deck == list(seeded_deck(JX_DECK, 5, 1)[0])
    report = verify_deals(store)
    assert (report.deals, report.committed, report.seeded, report.problems) == (3, 3, 1, [])


def test_events_recorded_before_seeds_became_optional_and_commitments_existed_still_decode():
    old_created = msgspec.msgpack.encode({"type": "match.created", "game": "uxinjo", "ruleset": "uxinjo-1",
                                          "players": ["a", "b", "c"], "seed": 7, "options": {}})
    assert decode("match.created", 1, old_created).seed == 7
    old_deal = msgspec.msgpack.encode({"type": "match.deal-started", "deal": 1, "dealer": 0,
                                       "deck": list(JX_DECK), "shuffle": "7:1"})
    event = decode("match.deal-started", 1, old_deal)
    assert (event.salt, event.commitment) == ("", "")
    unseeded = MatchCreated(game="uxinjo", ruleset="uxinjo-1", players=["a", "b", "c"])
    assert decode("match.created", 1, encode(unseeded)) == unseeded and unseeded.seed is None


def _forge(store, mid, event):
    """Append a deal the pipeline would never write (the hash chain stays intact)."""
    store.append(stream_of(mid), [event], store.stream_version(stream_of(mid)), actor="forger")


def test_verify_names_a_seeded_deal_that_is_not_its_seeds_shuffle(svc, store, k):
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=5)
    swapped = list(seeded_deck(JX_DECK, 5, 1)[0])
    swapped[0], swapped[20] = swapped[20], swapped[0]
    salt = "ab" * 16
    _forge(store, mid, DealStarted(deal=1, dealer=0, deck=swapped, shuffle="5:1", salt=salt,
                                   commitment=commitment(salt, swapped)))
    problems = verify_deals(store).problems
    assert [(p.match, p.deal) for p in problems] == [(mid, 1)]
    assert "not the seed's shuffle for deal 1" in problems[0].reason
    out = k("verify", code=1)
    assert f"match {mid} deal 1" in out and "seed's shuffle" in out


def test_verify_names_a_deal_whose_deck_is_not_the_one_committed_to(svc, store, k):
    mid = svc.create("uxinjo", ["ann", "bob", "cy"])
    salt = "cd" * 16
    committed_deck = list(JX_DECK)
    played = list(reversed(JX_DECK))
    _forge(store, mid, DealStarted(deal=1, dealer=0, deck=played, salt=salt,
                                   commitment=commitment(salt, committed_deck)))
    out = k("verify", code=1)
    assert f"match {mid} deal 1" in out and "commitment" in out
    report = json.loads(k("verify", "--json", code=1))
    assert not report["ok"] and report["deal_problems"][0]["match"] == mid


def test_verify_names_a_seed_key_in_a_match_without_a_seed(svc, store, k):
    mid = svc.create("uxinjo", ["ann", "bob", "cy"])
    deck, key = seeded_deck(JX_DECK, 9, 1)
    _forge(store, mid, DealStarted(deal=1, dealer=0, deck=list(deck), shuffle=key))
    out = k("verify", code=1)
    assert f"match {mid} deal 1" in out and "has no seed" in out


def test_verify_passes_a_clean_log_and_counts_the_deals(svc, store, k):
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=5)
    svc.deal(mid)
    svc.deal(svc.create("hakamo", ["ann", "bob", "cy", "dee"]))
    out = k("verify")
    assert out.startswith("ok: ") and "2 deals: 2 commitments match, 1 seeded deals are their seed's shuffle" in out


def test_verify_names_a_deck_entered_by_hand_in_a_seeded_match(svc, store, k):
    """A physical deal may be entered in any match, but in a seeded one (duplicate
    play) it replaces the seed's deal: verify says so instead of passing over it."""
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=5)
    svc.deal(mid, list(reversed(seeded_deck(JX_DECK, 5, 1)[0])))
    svc.deal(svc.create("uxinjo", ["ann", "bob", "cy"]), list(JX_DECK))  # no seed: nothing to say
    report = verify_deals(store)
    assert not report.problems and [(d.match, d.deal) for d in report.by_hand] == [(mid, 1)]
    out = k("verify")
    assert "2 deals: 2 commitments match, 0 seeded deals are their seed's shuffle" in out
    assert f"1 deal of a seeded match was entered by hand, not shuffled from its seed: match {mid} deal 1" in out
    shown = json.loads(k("verify", "--json"))
    assert shown["ok"] and shown["deals_by_hand_in_seeded_matches"] == [{"match": mid, "deal": 1, "version": 2}]


def test_a_player_checks_a_deal_from_public_data_only(svc, store, k):
    mid = svc.create("uxinjo", ["ann", "bob", "cy"])
    svc.deal(mid)
    running = k("match", "check", mid)
    deal = deals_of(store, mid)[0]
    assert "still running" in running and deal.commitment in running
    assert deal.salt not in running and " ".join(deal.deck) not in running
    play_out_deal(svc, mid)
    assert f"match {mid} deal 1: ok — sha256(salt:deck) = {deal.commitment}" in k("match", "check", mid[:6],
                                                                                   "--deal", "1")
    (checked,) = json.loads(k("match", "check", mid, "--json"))
    assert checked["status"] == "ok" and checked["salt"] == deal.salt and checked["deck"] == deal.deck
    assert "has no deal 4 (deals: 1)" in k("match", "check", mid, "--deal", "4", code=1)


def test_check_public_deal_reports_a_mismatch_and_old_deals():
    deck = list(JX_DECK)
    salt = "00" * 16
    good = {"deal": 2, "deck": deck, "salt": salt, "commitment": commitment(salt, deck)}
    assert check_public_deal("m", good).status == "ok"
    bad = check_public_deal("m", {**good, "deck": list(reversed(deck))})
    assert bad.status == "mismatch" and "MISMATCH" in str(bad) and "deal 2" in str(bad)
    assert check_public_deal("m", {**good, "deck": ["??"] * 38, "salt": ""}).status == "running"
    assert check_public_deal("m", {"deal": 1, "deck": deck}).status == "none"
