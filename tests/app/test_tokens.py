"""Seat tokens under concurrency: re-issues racing one another leave one live token per seat."""

from __future__ import annotations

import threading
from collections import Counter

from kartludo.app.tokens import TokenIndex, issue, issue_many, reissue_seat_tokens, revoke
from kartludo.store import EventStore


def _live(store, match_id: str) -> Counter:
    index = TokenIndex(store)
    index.refresh()
    return Counter(p.seat for p in index._live.values() if p.role == "seat" and p.match == match_id)


def test_concurrent_reissues_leave_exactly_one_live_token_per_seat(store, db_url):
    writers = [EventStore.open(db_url) for _ in range(8)]  # one connection each, as separate requests have
    try:
        for trial in range(6):
            mid = f"race{trial}"
            issue_many(store, [("seat", mid, i, name) for i, name in enumerate(["ann", "bob", "cy"])])
            barrier = threading.Barrier(len(writers))
            handed: list[list[str]] = []

            def reissue(w: EventStore, barrier: threading.Barrier, handed: list[list[str]], mid: str) -> None:
                barrier.wait()
                handed.append(reissue_seat_tokens(w, mid, ["ann", "bob", "cy"], reason="retried"))

            threads = [threading.Thread(target=reissue, args=(w, barrier, handed, mid)) for w in writers]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert len(handed) == len(writers)
            assert _live(store, mid) == Counter({0: 1, 1: 1, 2: 1}), trial
            index = TokenIndex(store)
            live = [[index.resolve(s) is not None for s in secrets] for secrets in handed]
            assert live.count([True, True, True]) == 1 and live.count([False, False, False]) == len(writers) - 1
    finally:
        for w in writers:
            w.close()


def test_a_reissue_also_revokes_seat_tokens_issued_elsewhere(store):
    issue_many(store, [("seat", "m1", i, name) for i, name in enumerate(["ann", "bob"])])
    extra = issue(store, "seat", match="m1", seat=1, label="bob")
    gone = issue(store, "seat", match="m1", seat=0, label="ann")
    revoke(store, gone)
    fresh = reissue_seat_tokens(store, "m1", ["ann", "bob"])
    index = TokenIndex(store)
    assert index.resolve(extra) is None and all(index.resolve(s) for s in fresh)
    assert _live(store, "m1") == Counter({0: 1, 1: 1})
