"""Event base type, the tag registry, and the msgpack/JSON codecs.

Every stored event is a frozen, tagged ``msgspec.Struct``. Tags are explicit and
stable (renaming a class never changes stored data). Each type carries a schema
version; an old stored version is upcast on read, never rewritten in the store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import msgspec


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", gc=False):
    """Base of every event. Subclasses set ``tag=`` explicitly.

    ``schema`` is the current schema version of the type. ``derived`` marks events
    the engine decides by itself (rulings, settlements, automatic plays) rather than
    a player's action: ``audit recheck`` recomputes exactly these. ``ends_deal``
    marks the last event of a deal or of the match.
    """

    schema: ClassVar[int] = 1
    derived: ClassVar[bool] = False
    #: the event ends a deal or the match (a settlement, a drawn deal, a closure): a
    #: moment the log is sealed (``store.chain``), whatever the game
    ends_deal: ClassVar[bool] = False

    @classmethod
    def type_tag(cls) -> str:
        return cls.__struct_config__.tag  # type: ignore[return-value]


class UnknownEventType(LookupError):
    """A stored or imported row names an event type this build does not know."""


class UndecodableEvent(ValueError):
    """A payload that does not decode as its declared type and version."""


def event_modules() -> list[str]:
    """Modules defining event types: every module of this package (the common ones and
    each installed game's), imported on first need so that decoding any stored row
    works without the caller importing every game."""
    import pkgutil

    from kartludo import events

    return [f"kartludo.events.{m.name}" for m in pkgutil.iter_modules(events.__path__)
            if not m.ispkg and m.name != "base"]

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
#: an upcaster that also reads its stream's first event (a match's creation: its players)
OriginUpcaster = Callable[[dict[str, Any], "Event | None"], dict[str, Any]]
#: gives the first event of the stream being read, when a step needs it (called at most once)
Origin = Callable[[], "Event | None"]

_TYPES: dict[str, type[Event]] = {}
_DECODERS: dict[str, msgspec.msgpack.Decoder] = {}
#: tag -> (decoder, current schema version): the read hot path's one lookup
CURRENT: dict[str, tuple[msgspec.msgpack.Decoder, int]] = {}
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}
_ORIGIN_UPCASTERS: dict[tuple[str, int], OriginUpcaster] = {}
_raw_decoder = msgspec.msgpack.Decoder()
_encoder = msgspec.msgpack.Encoder()
_json_encoder = msgspec.json.Encoder()


def register_union(*types: type[Event]) -> msgspec.msgpack.Decoder:
    """Register the event types of one union and return its typed decoder.

    One decoder per union (a game's events, the match's common events): msgspec
    dispatches on the tag inside the payload.
    """
    union = types[0] if len(types) == 1 else _union(types)
    decoder = msgspec.msgpack.Decoder(union)
    for cls in types:
        tag = cls.type_tag()
        if tag is None or not isinstance(tag, str):
            raise TypeError(f"{cls.__name__} needs an explicit string tag")
        known = _TYPES.get(tag)
        if known is not None and known is not cls:
            raise TypeError(f"event tag {tag!r} is used by {known.__name__} and {cls.__name__}")
        _TYPES[tag] = cls
        _DECODERS[tag] = decoder
        CURRENT[tag] = (decoder, cls.schema)
    return decoder


def _union(types: tuple[type[Event], ...]) -> Any:
    from typing import Union

    return Union[types]  # noqa: UP007 (a union of a runtime tuple of types: `X | Y` cannot spell it)


def upcaster(tag: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register a function turning a stored ``from_version`` payload (as a dict)
    into the next version's dict. Chains run until the type's current version."""

    def register(fn: Upcaster) -> Upcaster:
        _UPCASTERS[(tag, from_version)] = fn
        return fn

    return register


def origin_upcaster(tag: str, from_version: int) -> Callable[[OriginUpcaster], OriginUpcaster]:
    """As ``upcaster``, for a step that needs its stream's first event: an old payload
    that named players by seat label, say, names them from the match's creation. The
    reader passes ``origin`` (the store does, for every row it reads); without one (a
    payload checked on its own) the step gets None and must keep what it cannot convert."""

    def register(fn: OriginUpcaster) -> OriginUpcaster:
        _ORIGIN_UPCASTERS[(tag, from_version)] = fn
        return fn

    return register


def _load_games_for(tag: str) -> msgspec.msgpack.Decoder:
    """Game event modules register themselves on import; import them on first need."""
    import importlib

    for module in event_modules():
        importlib.import_module(module)
    try:
        return _DECODERS[tag]
    except KeyError:
        raise UnknownEventType(f"unknown event type {tag!r}") from None


def event_type(tag: str) -> type[Event]:
    if tag not in _TYPES:
        _load_games_for(tag)
    return _TYPES[tag]


def known_tags() -> list[str]:
    _load_games_for("match.created")
    return sorted(_TYPES)


def encode(event: Event) -> bytes:
    return _encoder.encode(event)


def decode(tag: str, schema_version: int, payload: bytes, origin: Origin | None = None) -> Event:
    """Decode a stored payload, upcasting an old schema version to the current one
    (``origin``: the stream's first event, for the steps that need it)."""
    decoder = _DECODERS.get(tag)
    if decoder is None:
        decoder = _load_games_for(tag)
    cls = _TYPES[tag]
    try:
        if schema_version == cls.schema:
            event: Event = decoder.decode(payload)
            return event
        return _upcast(cls, tag, schema_version, _raw_decoder.decode(payload), origin)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise UndecodableEvent(f"payload of {tag!r} v{schema_version} does not decode: {exc}") from None


def from_builtins(tag: str, schema_version: int, data: dict[str, Any], origin: Origin | None = None) -> Event:
    """Build an event from JSON-like data (an import), upcasting if needed."""
    cls = event_type(tag)
    try:
        if schema_version == cls.schema:
            return msgspec.convert(data, cls)
        return _upcast(cls, tag, schema_version, data, origin)
    except msgspec.ValidationError as exc:
        raise UndecodableEvent(f"payload of {tag!r} v{schema_version} does not decode: {exc}") from None


def _upcast(cls: type[Event], tag: str, version: int, data: Any, origin: Origin | None = None) -> Event:
    if not isinstance(data, dict):
        raise UndecodableEvent(f"payload of {tag!r} v{version} is not a map")
    if version > cls.schema or version < 1:
        raise UndecodableEvent(f"{tag!r} has no schema version {version} (current {cls.schema})")
    first: list[Event | None] = []  # the origin, asked for once
    while version < cls.schema:
        step = _UPCASTERS.get((tag, version))
        if step is not None:
            data = step(dict(data))
        else:
            with_origin = _ORIGIN_UPCASTERS.get((tag, version))
            if with_origin is None:
                raise UndecodableEvent(f"no upcaster for {tag!r} v{version} -> v{version + 1}")
            if not first:
                first.append(origin() if origin is not None else None)
            data = with_origin(dict(data), first[0])
        version += 1
    return msgspec.convert(data, cls)


def to_builtins(event: Event) -> dict[str, Any]:
    """The event as plain JSON-able data (tag included)."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    return data


def to_json(event: Event) -> bytes:
    return _json_encoder.encode(event)
