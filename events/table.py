"""Events of a match's ``table-MATCH`` stream: how the table runs the match, beside the
match's own stream (which the engines fold: this is none of the rules' business)."""

from __future__ import annotations

from kartludo.events.base import Event, register_union


class TableSet(Event, frozen=True, kw_only=True, tag="table.set"):
    """How the table runs the match from now on. ``auto_deal``: when a deal ends, the
    service starts the next one by itself (a ``StartDeal`` recorded by the table)."""

    auto_deal: bool = False


table_decoder = register_union(TableSet)
