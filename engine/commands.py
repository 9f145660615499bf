"""Commands that parse and print themselves, as python-chess's ``Move.from_uci`` / ``uci()``.

A command class declares its verb (the struct tag) and its CLI arguments
(``arguments``: a card, a list of cards, a number, a word, a named choice, a
``RX:up`` pair). ``Command.parse(seat, words)`` reads them and ``text()`` prints
them back, so ``parse(seat, cmd.args()) == cmd`` for every command a game lists as
legal. A game's ``parse_command`` is one generic lookup over its ``command_types``.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

import msgspec


class BadCommand(ValueError):
    """A command that cannot even be read (unknown verb, malformed card), or other
    input refused before any rule judges it. ``rule`` cites where the form is
    described, as ``IllegalCommand`` cites the rule broken: a game's player command
    cites the game's commands section (``Game.parse_command``); other input (a
    series' length, an option) cites none."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __str__(self) -> str:
        return f"{self.message} [{self.rule}]" if self.rule else self.message


class Arg:
    """One argument of a verb: how it reads a word into fields and prints them back.

    ``form`` is how help shows it (``CARD``, ``N``), ``noun`` what an arity error
    calls it ("card", "number"), ``about`` a hint after the noun (the names a choice
    takes), ``example`` a word it accepts.
    """

    form: str = "ARG"
    noun: str = "argument"
    about: str = ""
    example: str = ""
    #: takes all remaining words (zero or more), as a list
    many: bool = False

    def read(self, verb: str, word: str) -> dict[str, Any]:
        raise NotImplementedError

    def show(self, command: Command) -> list[str]:
        raise NotImplementedError

    def shape(self) -> dict[str, Any]:
        """The argument as ``GET /games`` describes it to a client."""
        out: dict[str, Any] = {"kind": type(self).__name__.lower(), "form": self.form, "noun": self.noun,
                               "example": self.example, "many": self.many}
        if self.about:
            out["about"] = self.about
        return out


CardReader = Callable[[str], "str | None"]


class Card(Arg):
    """A card code; ``read`` normalises what a player types (``r5`` -> ``R5``,
    ``10h`` -> ``TH``) and returns None for a word that is no card of the deck;
    ``what`` names the deck in the refusal ("a Jx card (R1…B9, …)")."""

    form = "CARD"
    noun = "card"

    def __init__(self, field: str, read: CardReader, what: str, example: str) -> None:
        self.field, self._read, self.what, self.example = field, read, what, example

    def card(self, verb: str, word: str) -> str:
        code = self._read(word)
        if code is None:
            raise BadCommand(f"{verb}: {word!r} is not {self.what}")
        return code

    def read(self, verb: str, word: str) -> dict[str, Any]:
        return {self.field: self.card(verb, word)}

    def show(self, command: Command) -> list[str]:
        return [getattr(command, self.field)]

    def shape(self) -> dict[str, Any]:
        return {**super().shape(), "cards": self.what}


class Cards(Card):
    """Zero or more cards (the rest of the words), as a tuple; ``order`` puts distinct
    cards in the order ``legal`` lists them (a hand's order), so a command typed in any
    order reads as the legal one."""

    form = "CARD…"
    many = True

    def __init__(self, field: str, read: CardReader, what: str, example: str,
                 order: Callable[[Iterable[str]], tuple[str, ...]] | None = None) -> None:
        super().__init__(field, read, what, example)
        self.order = order

    def read_all(self, verb: str, words: Sequence[str]) -> dict[str, Any]:
        cards = tuple(self.card(verb, w) for w in words)
        if self.order is not None and len(set(cards)) == len(cards):
            cards = self.order(cards)
        return {self.field: cards}

    def read(self, verb: str, word: str) -> dict[str, Any]:
        return self.read_all(verb, [word])

    def show(self, command: Command) -> list[str]:
        return list(getattr(command, self.field))


class Number(Arg):
    """A whole number (the rules judge its range, citing their section)."""

    form = "N"
    noun = "number"

    def __init__(self, field: str, example: int) -> None:
        self.field, self.example = field, str(example)

    def read(self, verb: str, word: str) -> dict[str, Any]:
        try:
            return {self.field: int(word)}
        except ValueError:
            raise BadCommand(f"{verb}: {word!r} is not a number") from None

    def show(self, command: Command) -> list[str]:
        return [str(getattr(command, self.field))]


class Word(Arg):
    """A name, lower-cased; the rules refuse one they do not know (citing their
    section), so a typo is answered with the rule listing the names."""

    form = "NAME"

    def __init__(self, field: str, noun: str, names: Sequence[str], example: str) -> None:
        self.field, self.noun, self.example = field, noun, example
        self.names = tuple(names)
        self.about = ": " + ", ".join(self.names)

    def read(self, verb: str, word: str) -> dict[str, Any]:
        return {self.field: word.lower()}

    def show(self, command: Command) -> list[str]:
        return [getattr(command, self.field)]

    def shape(self) -> dict[str, Any]:
        return {**super().shape(), "names": list(self.names)}


class Choice(Arg):
    """One of a fixed set of words (case-insensitive), each standing for a value."""

    def __init__(self, field: str, noun: str, choices: Mapping[str, Any], about: str, example: str) -> None:
        self.field, self.noun, self.about, self.example = field, noun, about, example
        self.choices = dict(choices)
        self._lower = {word.lower(): value for word, value in self.choices.items()}
        self.form = "|".join(self.choices)

    def read(self, verb: str, word: str) -> dict[str, Any]:
        try:
            return {self.field: self._lower[word.lower()]}
        except KeyError:
            raise BadCommand(f"{verb}: {word!r} is not a {self.noun}{self.about}") from None

    def show(self, command: Command) -> list[str]:
        value = getattr(command, self.field)
        return [next(word for word, v in self.choices.items() if v == value)]

    def shape(self) -> dict[str, Any]:
        return {**super().shape(), "names": list(self.choices)}


class Sided(Card):
    """A card laid face up or down: ``RX:up`` / ``G3:down`` (two fields)."""

    form = "CARD:up|down"

    def __init__(self, field: str, up_field: str, read: CardReader, what: str, example: str, about: str = "") -> None:
        super().__init__(field, read, what, example)
        self.up_field, self.about = up_field, about

    def read(self, verb: str, word: str) -> dict[str, Any]:
        code, sep, side = word.partition(":")
        side = side.lower()
        if not sep or side not in ("up", "down"):
            raise BadCommand(f"{verb}: {word!r} must be CARD:up or CARD:down, e.g. {verb} {self.example}")
        return {self.field: self.card(verb, code), self.up_field: side == "up"}

    def show(self, command: Command) -> list[str]:
        return [f"{getattr(command, self.field)}:{'up' if getattr(command, self.up_field) else 'down'}"]


_COUNTS = {1: "one", 2: "two", 3: "three", 4: "four"}
#: each command type's printer, made once (``Command.text``)
_TEXTS: dict[type, Callable[[Command], str]] = {}


def _printer(cls: type[Command]) -> Callable[[Command], str]:
    """``cls.text`` as one function: a legal listing prints commands by the thousand
    (to sort them and to show them), and most verbs take one card, one list of cards
    or nothing. Every other shape prints its ``args()``."""
    verb = cls.verb()
    own_args = cls.args is not Command.args
    arguments = cls.arguments
    if not arguments and not own_args:
        return lambda command: verb
    arg = arguments[0] if len(arguments) == 1 and not own_args else None
    if type(arg) in (Card, Cards, Word):  # exactly these: a subclass may show itself otherwise
        assert isinstance(arg, (Card, Word))
        field, head = operator.attrgetter(arg.field), verb + " "
        if type(arg) is Cards:
            def cards(command: Command) -> str:
                words = field(command)
                return head + " ".join(words) if words else verb
            return cards
        return lambda command: head + field(command)

    def generic(command: Command) -> str:
        args = command.args()
        return f"{verb} {' '.join(args)}" if args else verb
    return generic


class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="verb", gc=False):
    """Base of player commands. Subclasses set ``tag=`` to the CLI verb and list
    their CLI arguments in ``arguments`` (in order).

    Commands are never stored; the events ``decide`` returns are. They hold only
    numbers, words and tuples of them (no cycle), so the garbage collector need not
    track the thousands a legal listing makes (``gc=False``).
    """

    seat: int

    arguments: ClassVar[tuple[Arg, ...]] = ()
    #: False for the table's own command (``deal``): no seat types it with ``act``
    player_verb: ClassVar[bool] = True

    @classmethod
    def verb(cls) -> str:
        return str(cls.__struct_config__.tag)

    @classmethod
    def usage(cls) -> str:
        """The verb with its argument forms: ``lay CARD:up|down CARD:up|down``."""
        return " ".join([cls.verb(), *(a.form for a in cls.arguments)])

    @classmethod
    def example(cls) -> str:
        return " ".join([cls.verb(), *(a.example for a in cls.arguments if a.example)])

    @classmethod
    def takes(cls) -> str:
        """What the verb takes, for the refusal of a wrong number of words."""
        args = cls.arguments
        if not args:
            return f"{cls.verb()} takes no arguments"
        first = args[0]
        if first.many:
            return f"{cls.verb()} takes {first.noun}s ({first.form}), e.g. {cls.example()}"
        count = _COUNTS.get(len(args), str(len(args)))
        noun = first.noun if len(args) == 1 else f"{first.noun}s"
        return f"{cls.verb()} takes {count} {noun}{first.about}, e.g. {cls.example()}"

    @classmethod
    def parse(cls, seat: int, words: Sequence[str]) -> Command:
        """The command ``seat`` typed as ``verb WORD…`` (the words after the verb)."""
        args = cls.arguments
        values: dict[str, Any] = {}
        if args and args[-1].many:
            fixed = len(args) - 1
            if len(words) < fixed:
                raise BadCommand(cls.takes())
            rest = args[-1]
            assert isinstance(rest, Cards)
            values.update(rest.read_all(cls.verb(), words[fixed:]))
        elif len(words) != len(args):
            raise BadCommand(cls.takes())
        else:
            fixed = len(args)
        for arg, word in zip(args[:fixed], words[:fixed]):
            values.update(arg.read(cls.verb(), word))
        return cls(seat=seat, **values)

    @classmethod
    def shape(cls) -> dict[str, Any]:
        """The verb as ``GET /games`` describes it: usage, example and each argument."""
        return {"verb": cls.verb(), "usage": cls.usage(), "example": cls.example(),
                "about": (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " "),
                "args": [a.shape() for a in cls.arguments]}

    def args(self) -> list[str]:
        """The verb's arguments as the CLI takes them."""
        return [word for arg in self.arguments for word in arg.show(self)]

    def text(self) -> str:
        """The command as the CLI takes it: ``verb WORD…``."""
        cls = type(self)
        printer = _TEXTS.get(cls)
        if printer is None:
            printer = _TEXTS.setdefault(cls, _printer(cls))
        return printer(self)

    def __lt__(self, other: Command) -> bool:  # sorted legal commands
        return (self.seat, self.text()) < (other.seat, other.text())


class StartDeal(Command, frozen=True, kw_only=True, tag="deal"):
    """Start the next deal with this deck order (top first).

    The engine never shuffles: when no deck is entered by hand the pipeline fills
    ``deck`` from the match's seeded shuffle (``shuffle`` then names it) or, in a
    match without a seed, from the operating system's CSPRNG (``shuffle`` is
    ``"random"``). ``seat`` is -1: a deal is started by the table (or its TD), not
    by a seat.
    """

    player_verb: ClassVar[bool] = False

    seat: int = -1
    deck: tuple[str, ...]
    shuffle: str | None = None

    def args(self) -> list[str]:
        return list(self.deck)


def player_verbs(command_types: Iterable[type[Command]]) -> dict[str, type[Command]]:
    return dict(_player_verbs(tuple(command_types)))


@functools.lru_cache(maxsize=64)
def _player_verbs(command_types: tuple[type[Command], ...]) -> dict[str, type[Command]]:
    """A game's verbs by name, made once per game (every command read looks one up).
    Callers only read it."""
    return {cls.verb(): cls for cls in command_types if cls.player_verb}


def parse_command(title: str, command_types: Iterable[type[Command]], seat: int, verb: str,
                  words: Sequence[str], rule: str | None = None) -> Command:
    """Read ``verb WORD…`` as one of ``command_types``; an unknown verb is refused
    listing every verb with its arguments. ``rule`` (the game's commands section) is
    cited by every refusal, as the rules' refusals cite theirs."""
    verbs = _player_verbs(tuple(command_types))
    cls = verbs.get(verb.lower())
    if cls is None:
        forms = ", ".join(c.usage() for c in verbs.values())
        raise BadCommand(f"unknown {title} verb {verb!r} (verbs: {forms})", rule)
    try:
        return cls.parse(seat, list(words))
    except BadCommand as refused:
        if rule is None or refused.rule is not None:
            raise
        raise BadCommand(refused.message, rule) from None
