"""Events of a match's ``table-MATCH`` stream: how the table runs the match, beside the
match's own stream (which the engines fold: this is none of the rules' business)."""

from __future__ import annotations

from kartludo.events.base import Event, register_union


class TableSet(Event, frozen=True, kw_only=True, tag="table.set"):
    """How the table runs the match from now on. ``auto_deal``: when a deal ends, the
    service starts the next one by itself (a ``StartDeal`` recorded by the table)."""

    auto_deal: bool = False


class WatchSet(Event, frozen=True, kw_only=True, tag="table.watch-set"):
    """Who watches the match without a token (its public view) sees it delayed, from now
    on: ``moves`` (a number of seats' moves) or ``seconds`` behind the table, at most one
    of them (neither: live, as without a setting). ``hands``: the watchers see every hand,
    in the delayed view only (never set without a delay). ``by``: the TD who set it."""

    moves: int | None = None
    seconds: int | None = None
    hands: bool = False
    by: str = ""
    reason: str = ""


table_decoder = register_union(TableSet, WatchSet)
