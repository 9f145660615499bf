"""Events every match stream shares, whatever the game.

A match stream starts with ``MatchCreated``; each deal starts with ``DealStarted``
holding the full deck order (top first), so the stream alone rebuilds the deal.
Penalty rulings of every game derive from ``Ruling`` so the audit trail can read
them without knowing the game; appeals and TD decisions are new events, never edits.
"""

from __future__ import annotations

from typing import Any, Literal

from kartludo.events.base import Event, register_union


class MatchCreated(Event, frozen=True, kw_only=True, tag="match.created"):
    """A match begins. ``seed`` (None: no seed) derives every deal's shuffle for
    reproducible or duplicate play; it is a TD secret until the match has ended.
    Without a seed each deal is shuffled afresh from the operating system's CSPRNG.

    An older stored event always has a seed: a missing one decodes as None, so the
    schema version stays 1.
    """

    game: str
    ruleset: str
    players: list[str]
    seed: int | None = None
    options: dict[str, Any] = {}
    series: str | None = None
    #: a match without a seed: a number drawn from the OS CSPRNG at creation, from which
    #: the rules draw what they choose at random before any deal (Svoi Kozyri's first
    #: dealer). Public: it decides nothing hidden. None with a seed (the seed decides).
    lot: int | None = None


#: ``DealStarted.shuffle`` of a deck shuffled by the operating system's CSPRNG
RANDOM_SHUFFLE = "random"
#: what a reader who may not see the seed is shown instead of a seeded shuffle's key
SEEDED_SHUFFLE = "seeded"


class DealStarted(Event, frozen=True, kw_only=True, tag="match.deal-started"):
    """A deal begins. ``deal`` counts every deal started in the match (redeals too);
    ``shuffle`` names how the deck came about: the seeded shuffle's key
    (``"SEED:DEAL"``, secret while the match runs), ``"random"`` (the CSPRNG) or None
    (a deck entered by hand).

    ``commitment`` is the SHA-256 (hex) of the text ``f"{salt}:{' '.join(deck)}"``
    with ``salt`` 16 random bytes in hex, fresh for every deal: every seat sees it
    while the deal runs, and once the deal has ended (deck and salt public) anyone
    can check that the deck played is the deck committed to. Deals recorded before
    commitments existed have empty ``salt`` and ``commitment`` (schema version 1
    still: the fields have defaults).
    """

    deal: int
    dealer: int
    deck: list[str]
    shuffle: str | None = None
    salt: str = ""
    commitment: str = ""


class Ruling(Event, frozen=True, kw_only=True, tag="match.ruling"):
    """Base of penalty rulings: the rule applied, the facts it was judged on, its effect.

    ``rule`` cites the rules section (and the project RULING where one decides it).
    Games subclass it with their own tag; ``facts`` and ``effect`` are plain data so
    the audit trail and replay can show them for any game.
    """

    derived = True
    #: what only explains the ruling (the citation; a game adds its ``facts.`` and
    #: ``effect.`` keys that are sentences): rewording them changes no outcome, so
    #: ``audit recheck`` does not list a ruling that differs only there
    words = frozenset({"rule"})

    ruling_id: str
    deal: int
    seat: int
    rule: str
    facts: dict[str, Any] = {}
    effect: dict[str, Any] = {}


class FlagFall(Ruling, frozen=True, kw_only=True, tag="match.flag-fall"):
    """A seat's time ran out (``app.matches.clock``): a ruling the server appends,
    not the game's engine, so the engines never fold it (the match aggregate records
    it). ``facts`` hold the times it was judged on (the control, when the seat was put
    to act, the time it had, when its flag fell: no card); ``effect`` the consequence
    (``"bot"``: the game's heuristic bot plays the seat's turn, its events follow this
    one in the same append). Appealed and decided like every ruling; an overturn gives
    the seat back the time that turn took (``facts["turn_us"]``)."""


class RulingAppealed(Event, frozen=True, kw_only=True, tag="match.ruling-appealed"):
    ruling_id: str
    by: str
    reason: str


class RulingDecided(Event, frozen=True, kw_only=True, tag="match.ruling-decided"):
    """A tournament director's decision on an appeal; ``overturn`` undoes the
    ruling's effects in the match state from here on, the original events stay.

    ``adjust`` (a weighted adjusted score, bridge Law 12C1(c)) replaces the score of
    the ruled ``deal``: ``recorded`` is its score as played, ``adjusted`` the score
    awarded (the weighted mean of the ``weights``' hypotheticals' deal scores, or set
    directly), ``adjustment`` what the game adds to each player's totals (awarded,
    rounded to whole points keeping their sum, minus recorded). The fields default
    empty, so older decisions decode unchanged (schema version 1)."""

    ruling_id: str
    by: str
    decision: Literal["uphold", "overturn", "adjust"]
    reason: str
    deal: int = 0
    recorded: dict[str, int] = {}
    adjusted: dict[str, float] = {}
    adjustment: dict[str, int] = {}
    #: hypothetical id -> weight (empty for scores set directly)
    weights: dict[str, float] = {}


class MatchClosed(Event, frozen=True, kw_only=True, tag="match.closed"):
    """The match ends outside the game's own rules: a series deadline passed, so
    the match stands as scored after its last deal (the match aggregate,
    ``engine/match.py``, records and folds it; the game's engine never sees it)."""

    ends_deal = True

    reason: str
    deal: int


MATCH_EVENTS = (MatchCreated, DealStarted, RulingAppealed, RulingDecided, MatchClosed, FlagFall)
match_decoder = register_union(*MATCH_EVENTS)
