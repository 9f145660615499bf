"""A small league in a store, through the real pipeline: what the tamper and forgery
tests attack. Three finished matches of two games (one in a series), one match still
running, TD and seat tokens with one revoked; sealed once in the middle and once at
the end."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from kartludo.app.league.series import create_series, load_series
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.matches.simulate import pick_bots, play_match
from kartludo.app.tokens import issue, revoke
from kartludo.store import chain
from kartludo.store.eventstore import EventStore
from kartludo.store.keys import SealKey


class League:
    def __init__(self, store: EventStore, key: SealKey) -> None:
        self.store, self.key = store, key
        svc = MatchService(store)
        rng = random.Random(7)
        self.series = create_series(store, "uxinjo", ["ann", "bob", "cy"], 600, actor="mia")
        order = load_series(store, self.series).seat_order(0)
        self.series_match, _, _ = play_match(svc, "uxinjo", order, pick_bots("uxinjo", None), rng,
                                             series=self.series)
        self.td = issue(store, "td", label="mia")
        store.settle(60)  # a shared PostgreSQL: another session's transaction may hold the horizon a while
        self.first_seal, _ = chain.seal(store, key)
        self.finished, _, _ = play_match(svc, "svoi-kozyri", ["ann", "bob", "cy", "dee"],
                                         pick_bots("svoi-kozyri", None), rng)
        self.other, _, _ = play_match(svc, "uxinjo", ["dee", "eve", "fay"], pick_bots("uxinjo", None), rng)
        self.seat = issue(store, "seat", match=self.other, seat=0, label="dee")
        self.revoked = issue(store, "td", label="old")
        revoke(store, self.revoked, by="mia", reason="lost")
        self.running = svc.create("uxinjo", ["ann", "dee", "fay"], actor="mia")
        svc.deal(self.running, actor="mia")
        store.settle(60)
        self.newest_seal, _ = chain.seal(store, key)
        assert self.newest_seal.position == store.head_position(), "the newest seal covers every event"
        self.written_down = self.newest_seal.as_head  # what the TD published


def root_conftest(config: Any) -> Any:
    """tests/conftest.py as pytest loaded it (``import conftest`` may find another one)."""
    for plugin in config.pluginmanager.get_plugins():
        if getattr(plugin, "__file__", "") == str(Path(__file__).parents[1] / "conftest.py"):
            return plugin
    raise LookupError("tests/conftest.py is not loaded")


def stream_of(match_id: str) -> str:
    return f"match-{match_id}"
