"""Small event types used by the store tests only."""

from kartludo.events.base import Event, register_union, upcaster


class Noted(Event, frozen=True, kw_only=True, tag="test.noted"):
    n: int
    text: str = ""


class Moved(Event, frozen=True, kw_only=True, tag="test.moved"):
    """Schema v2: ``cards`` (a list) replaced v1's ``card`` (one card)."""

    schema = 2

    seat: int
    cards: list[str]


@upcaster("test.moved", from_version=1)
def _moved_v1_to_v2(data: dict) -> dict:
    data["cards"] = [data.pop("card")]
    return data


decoder = register_union(Noted, Moved)
