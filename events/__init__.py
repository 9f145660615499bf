"""Event types: frozen tagged msgspec structs, their registry and codecs."""

from kartludo.events.base import (
    Event,
    UndecodableEvent,
    UnknownEventType,
    decode,
    encode,
    event_type,
    from_builtins,
    known_tags,
    register_union,
    to_builtins,
    to_json,
    upcaster,
)

__all__ = [
    "Event",
    "UndecodableEvent",
    "UnknownEventType",
    "decode",
    "encode",
    "event_type",
    "from_builtins",
    "known_tags",
    "register_union",
    "to_builtins",
    "to_json",
    "upcaster",
]
