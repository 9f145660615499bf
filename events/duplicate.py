"""Events of a duplicate event (stream ``duplicate-<id>``): the same deals at many tables,
and the link a board's match carries in its ``table-MATCH`` stream (``BoardOf``).

Duplicate play takes the luck of the deal out of a result: every table plays the same
boards (a deck each) from the same seats, and each table's result on a board is
compared only with the other tables' results on that board. A board at a table is a
match of its own with one deal (``MatchCreated.duplicate``): no board's result carries
into the next (markers, penalties, contracts used, who deals next, a match's end).
"""

from __future__ import annotations

from typing import Any

from kartludo.events.base import Event, register_union


class DuplicateCreated(Event, frozen=True, kw_only=True, tag="duplicate.created"):
    """B boards for T tables of one game. ``tables`` are the players of each table in
    seat order; board k (from 1) seats them turned k - 1 places, so the dealer's seat
    goes round the table as in bridge, the same way at every table.

    ``decks`` (top first, one per board) and ``seed`` are the TD's secrets: a board's
    deck is shown once every table has played that board, the seed once every board
    has been. ``commitments`` are public from the start: the SHA-256 of
    ``f"{salt}:{' '.join(deck)}"`` per board, so anyone can check afterwards that every
    table got the board committed to. ``lots``: each board's draw for what a game
    chooses at random before its first deal (Svoi Kozyri's first dealer), the same at
    every table. ``options``: the game's options as typed (each board's match is
    created with them)."""

    game: str
    ruleset: str
    boards: int
    tables: list[list[str]]
    decks: list[list[str]]
    salts: list[str]
    commitments: list[str]
    lots: list[int]
    options: dict[str, Any] = {}
    seed: int | None = None
    label: str = ""
    by: str = ""


class BoardStarted(Event, frozen=True, kw_only=True, tag="duplicate.board-started"):
    """Table ``table`` (from 1) starts board ``board`` (from 1) as match ``match``, in
    the same transaction as the match's creation: the event's version orders them."""

    board: int
    table: int
    match: str


class BoardOf(Event, frozen=True, kw_only=True, tag="duplicate.board-of"):
    """In a board's ``table-MATCH`` stream, written with the match: the match is board
    ``board`` at table ``table`` of duplicate event ``duplicate``. Readers take from it
    that the match's deal stays hidden until every table has played the board."""

    duplicate: str
    board: int
    table: int


duplicate_decoder = register_union(DuplicateCreated, BoardStarted, BoardOf)
