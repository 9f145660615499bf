"""The shape of each legal verb: what a client offers instead of every command.

A Laugavatnsmanni exchange of up to four cards is 2,517 legal commands and a Hakamo
bid up to 45; a table shows them as "choose 0-4 of your cards, then Exchange" and a
number field. ``shapes`` summarises a seat's legal commands verb by verb:

- ``plain``: the verb alone (``draw``, ``pass``);
- ``cards``: ``count_min``..``count_max`` cards chosen from ``cards`` (the seat's own
  cards in hand order; any subset of that size for a verb taking a list of cards, an
  ordered choice of distinct cards for a verb taking several single cards, each laid
  on one of its ``sides`` when the verb takes ``CARD:up|down``);
- ``number``: a whole number from ``min`` to ``max``;
- ``choice``: one word of ``choices``;
- ``list``: none of these fits exactly, so the commands themselves (``commands``).

Each shape is derived from the seat's legal commands and checked to expand to exactly
them (``expand``), so a shape never offers a refused command nor hides a legal one.
Only the seat's own legal commands go in: a shape never shows another seat's cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, permutations, product
from typing import Any

import msgspec

from kartludo.engine.commands import Card, Cards, Choice, Command, Number, Sided, Word


class Shape(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One legal verb's shape (see the module's docstring)."""

    verb: str
    kind: str
    #: how a person reads it: "exchange: 0-4 of your cards"
    text: str
    cards: list[str] = []
    count_min: int = 0
    count_max: int = 0
    ordered: bool = False
    sides: dict[str, list[str]] = {}
    min: int = 0
    max: int = 0
    choices: list[str] = []
    commands: list[str] = []


def hand_order(cards: Sequence[str], hand: Sequence[str]) -> list[str]:
    """``cards`` in the order the hand holds them (cards the hand lacks go last)."""
    place = {c: i for i, c in reversed(list(enumerate(hand)))}
    return sorted(cards, key=lambda c: place.get(c, len(hand)))


def ordered_commands(legal: Sequence[Command], verbs: Sequence[str], hand: Sequence[str]) -> list[Command]:
    """``legal`` verb by verb (the game's verb order), each verb's commands in hand order
    of the cards they name and a choice's words in the order the command lists them
    (seats in seat order), not alphabetically: how a person reads a list of moves."""
    place = {c: i for i, c in reversed(list(enumerate(hand)))}
    verb_rank = {v: i for i, v in enumerate(verbs)}

    def rank(cmd: Command, i: int, word: str) -> int:
        args = type(cmd).arguments
        arg = args[i] if i < len(args) else None
        if isinstance(arg, (Choice, Word)):
            order = [w.lower() for w in (arg.choices if isinstance(arg, Choice) else arg.names)]
            return order.index(word.lower()) if word.lower() in order else len(order)
        return place.get(word.partition(":")[0], len(hand))

    def key(cmd: Command) -> tuple[Any, ...]:
        words = cmd.args()
        return (verb_rank.get(cmd.verb(), len(verbs)), len(words), [rank(cmd, i, w) for i, w in enumerate(words)],
                words)

    return sorted(legal, key=key)


def _count_text(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _cards_shape(verb: str, cls: type[Command], group: list[Command], hand: Sequence[str]) -> Shape | None:
    args = cls.arguments
    if len(args) == 1 and isinstance(args[0], Cards):
        field = args[0].field
        chosen = [tuple(getattr(c, field)) for c in group]
        pool = hand_order(list(dict.fromkeys(card for cards in chosen for card in cards)), hand)
        sizes = [len(c) for c in chosen]
        lo, hi = min(sizes), max(sizes)
        text = f"{verb}: {_count_text(lo, hi)} of your cards"
        return Shape(verb=verb, kind="cards", text=text, cards=pool, count_min=lo, count_max=hi)
    singles = [a for a in args if isinstance(a, Card) and not a.many]
    if args and len(singles) == len(args):
        fields = [a.field for a in singles]
        sided = [a for a in args if isinstance(a, Sided)]
        used: dict[str, int] = {}  # each card, as often as one command names it at most
        sides: dict[str, set[str]] = {}
        for cmd in group:
            named: dict[str, int] = {}
            for f in fields:
                card = getattr(cmd, f)
                named[card] = named.get(card, 0) + 1
            for card, times in named.items():
                if times > used.get(card, 0):
                    used[card] = times
            for a in sided:
                card = getattr(cmd, a.field)
                sides.setdefault(card, set()).add("up" if getattr(cmd, a.up_field) else "down")
        pool = hand_order([card for card, times in used.items() for _ in range(times)], hand)
        k = len(args)
        if k == 1:
            text = f"{verb}: one of {' '.join(pool)}"
        else:
            text = f"{verb}: {k} of your cards, in order" + (", each face up or down" if sides else "")
        return Shape(verb=verb, kind="cards", text=text, cards=pool, count_min=k, count_max=k, ordered=k > 1,
                     sides={c: [s for s in ("up", "down") if s in v] for c, v in sides.items()})
    return None


def _summary(verb: str, cls: type[Command], group: list[Command], hand: Sequence[str],
             players: Sequence[str] = ()) -> Shape | None:
    args = cls.arguments
    if not args:
        return Shape(verb=verb, kind="plain", text=verb)
    cards = _cards_shape(verb, cls, group, hand)
    if cards is not None:
        return cards
    if len(args) == 1 and isinstance(args[0], Number):
        values = sorted(getattr(c, args[0].field) for c in group)
        return Shape(verb=verb, kind="number", text=f"{verb}: {values[0]}-{values[-1]}" if len(values) > 1
                     else f"{verb}: {values[0]}", min=values[0], max=values[-1])
    if len(args) == 1 and isinstance(args[0], (Word, Choice)):
        names = [w.lower() for w in (args[0].names if isinstance(args[0], Word) else args[0].choices)]
        words = sorted((c.args()[0] for c in group), key=lambda w: names.index(w.lower()) if w.lower() in names
                       else len(names))
        return Shape(verb=verb, kind="choice", text=f"{verb}: {' | '.join(_said(args[0], w, players) for w in words)}",
                     choices=words)
    return None


def _said(arg: Any, word: str, players: Sequence[str]) -> str:
    """A choice word as people read it: a seat's word (``Or``) with its player's name
    first, ``ann (Or)``; the word itself stays what the command takes."""
    if isinstance(arg, Choice) and arg.noun == "seat":
        seat = arg.choices.get(word)
        if isinstance(seat, int) and 0 <= seat < len(players):
            return f"{players[seat]} ({word})"
    return word


def _words(shape: Shape) -> list[list[str]]:
    """Every argument list a shape stands for (before parsing)."""
    if shape.kind == "plain":
        return [[]]
    if shape.kind == "number":
        return [[str(n)] for n in range(shape.min, shape.max + 1)]
    if shape.kind == "choice":
        return [[w] for w in shape.choices]
    if shape.kind == "list":
        return [text.split()[1:] for text in shape.commands]
    if not shape.ordered and not shape.sides:  # a set of distinct cards
        return [list(combo) for k in range(shape.count_min, shape.count_max + 1)
                for combo in combinations(shape.cards, k)]
    out: list[list[str]] = []
    for picked in permutations(range(len(shape.cards)), shape.count_max):
        cards = [shape.cards[i] for i in picked]
        if shape.sides:
            for chosen in product(*(shape.sides.get(c, []) for c in cards)):
                out.append([f"{c}:{s}" for c, s in zip(cards, chosen)])
        else:
            out.append(cards)
    return out


def expand(shape: Shape, seat: int, parse: Any) -> list[Command]:
    """The commands ``shape`` stands for, each read by ``parse(seat, verb, words)``
    (a game's ``parse_command``), without repeats."""
    seen: dict[Command, None] = {}
    for words in _words(shape):
        seen[parse(seat, shape.verb, words)] = None
    return list(seen)


def shapes(legal: Sequence[Command], verbs: Sequence[type[Command]], hand: Sequence[str], seat: int,
           parse: Any, players: Sequence[str] = ()) -> list[Shape]:
    """The shapes of ``legal`` (one seat's legal commands), one per verb in ``verbs``
    order; a verb whose summary would not expand to exactly its commands is a ``list``.
    ``players``: the names in seat order, so a text naming a seat names its player."""
    by_verb: dict[str, list[Command]] = {}
    for cmd in legal:
        by_verb.setdefault(cmd.verb(), []).append(cmd)
    out = []
    for cls in verbs:
        verb = cls.verb()
        group = by_verb.pop(verb, None)
        if not group:
            continue
        shape = _summary(verb, cls, group, hand, players)
        if shape is None or set(expand(shape, seat, parse)) != set(group):
            texts = [c.text() for c in ordered_commands(group, [verb], hand)]
            shape = Shape(verb=verb, kind="list", text=f"{verb}: " + " | ".join(t.partition(" ")[2] or verb
                                                                             for t in texts), commands=texts)
        out.append(shape)
    for verb, group in by_verb.items():  # a verb the game does not list (none today)
        texts = [c.text() for c in group]
        out.append(Shape(verb=verb, kind="list", text=f"{verb}: " + " | ".join(texts), commands=texts))
    return out
