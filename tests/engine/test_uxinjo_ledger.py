"""Uxinjo's packed ledger gives back every row added, in order, whether it is still in
the open tail or sealed; and states share what was sealed before them."""

from __future__ import annotations

import msgspec

from kartludo.engine.uxinjo.state import AdjustRow, Ledger, PenaltyRow, SettleRow


def _row(i: int):
    kind = i % 3
    if kind == 0:
        return PenaltyRow(f"uxinjo-d{i}-Or", i % 3)
    if kind == 1:
        return SettleRow((i % 3,) if i % 2 else (), ((0, 1, 2, "stock"), (0, 2, 1, "levu")))
    return AdjustRow((i, -i, 0))


def test_every_row_comes_back_in_order_across_sealed_chunks():
    ledger = Ledger()
    rows = []
    states = [ledger]
    for i in range(600):
        rows.append(_row(i))
        ledger = ledger.add(rows[-1])
        states.append(ledger)
    assert len(ledger.sealed) >= 5, "600 rows fill several chunks"
    assert ledger.count == 600 and ledger.rows() == tuple(rows)
    for n in (0, 1, 99, 317, 600):
        assert states[n].rows() == tuple(rows[:n])
    # a later state shares the chunks sealed before it (no copy of the history)
    assert all(a is b for a, b in zip(states[300].sealed, ledger.sealed))
    # what a snapshot stores decodes to an equal ledger
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(ledger), type=Ledger) == ledger
