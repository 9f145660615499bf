"""Phases in words people read ("waiting for the next deal", not ``waiting_deal``): the
text renders and the CLI say these; the JSON keeps the phase's value. The table pages
carry the same words (web/static/js/tables/common.js)."""

from __future__ import annotations

WORDS = {
    "waiting_deal": "waiting for the next deal",
    "finished": "match over",
    "turn": "turn: draw or take",
    "discard": "turn: discard",
    "claim": "claim window",
    "judging": "judging claims",
    "auction": "auction",
    "kasxetoj": "Kasxetoj: keep or exchange",
    "lay": "Kasxetoj: laying",
    "kunulo": "Kunulo: solo or recruit",
    "shares": "Kunulo auction",
    "no_kunulo": "no Kunulo: solo or resign",
    "declaration": "declaration",
    "tricks": "tricks",
    "passed_out": "passed out",
    "contract": "choosing the contract",
    "great": "great calls",
    "hold": "hold or yield",
    "exchange": "Manni exchange",
    "play": "tricks",
    "scoring": "scoring",
    "lead": "lead",
    "beat": "beat or pick up",
    "extra": "extra card",
    "free": "free play",
}


def phase_words(value: str) -> str:
    """A phase's value in words (an unknown one with its underscores as spaces)."""
    return WORDS.get(value, value.replace("_", " "))
