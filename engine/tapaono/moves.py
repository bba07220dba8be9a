"""Tapaono moves: their values, their text notation, and the parser for what players type.

A move is `engine.core.Move(kind, args)`; fields appear in args as (q, r) tuples and in
text as `q,r` (e.g. `-1,3`), pieces as 1, 2, 3. Moves are interned (one object per
value), which keeps legal-move lists cheap to build and to search. Whether a move is
legal is for rules.py to say; this module only turns text into moves and back.

    move 2 -1,3          stop                 play transport 2
    keep                 use                  play conquer-three 2,0 1,0 2,1 3,-1
    land 1 0,2           jump 3 -2,4          recall 2
    remove 4,-3          skip                 roll 1
    take -1,2 0,2        take none            end
    propose fast         accept               decline
"""

from __future__ import annotations

import re

from engine.core import IllegalMove, Move, normalize_text

from . import aliases
from .board import CARD_BY_LABEL, FIELDS, INDEX, IS_STAR, KEEPABLE, Card
from .state import Mode

KINDS = ("move", "stop", "play", "keep", "use", "land", "jump", "recall", "remove", "skip",
         "roll", "take", "end", "propose", "accept", "decline")
PLAYABLE = tuple(card.label for card in Card if card in KEEPABLE)  # cards a player plays by choice
_INTERN: dict = {}
_FIELD = re.compile(r"^\(?(-?\d{1,3}),(-?\d{1,3})\)?$")


def mv(kind: str, args: tuple = ()) -> Move:
    """The one Move object for (kind, args)."""
    key = (kind, args)
    move = _INTERN.get(key)
    if move is None:
        move = _INTERN[key] = Move(kind, args)
    return move


def coords(index: int) -> tuple[int, int]:
    return FIELDS[index]


STOP, KEEP, USE, SKIP, END, ACCEPT, DECLINE = (mv(k) for k in ("stop", "keep", "use", "skip", "end", "accept",
                                                              "decline"))
MOVE_TO = tuple(tuple(mv("move", (piece + 1, *FIELDS[f])) for f in range(len(FIELDS))) for piece in range(3))
LAND = tuple(tuple(mv("land", (piece + 1, *FIELDS[f])) for f in range(len(FIELDS))) for piece in range(3))
JUMP = tuple(tuple(mv("jump", (piece + 1, *FIELDS[f])) for f in range(len(FIELDS))) for piece in range(3))
REMOVE = tuple(mv("remove", FIELDS[f]) for f in range(len(FIELDS)))
RECALL = tuple(mv("recall", (piece + 1,)) for piece in range(3))
ROLL = tuple(mv("roll", (piece + 1,)) for piece in range(3))
TRANSPORT = tuple(mv("play", ("transport", piece + 1)) for piece in range(3))
PROPOSE = {mode: mv("propose", (mode,)) for mode in Mode.ALL}


def take(fields: tuple[int, ...]) -> Move:
    """The take move for field indices (in board order)."""
    return mv("take", (tuple(FIELDS[f] for f in fields),))


def conquer(card: Card, star: int, fields: tuple[int, ...]) -> Move:
    """Play a conquest card on star, conquering fields (indices in board order)."""
    return mv("play", (card.label, *FIELDS[star], tuple(FIELDS[f] for f in fields)))


# ---------------------------------------------------------------------------------------
# Notation


def _f(coord) -> str:
    return f"{coord[0]},{coord[1]}"


def notation(move: Move) -> str:
    """The text of a move, as players type it (the state is not needed)."""
    kind, args = move.kind, move.args
    if kind in ("move", "land", "jump"):
        return f"{kind} {args[0]} {args[1]},{args[2]}"
    if kind in ("recall", "roll"):
        return f"{kind} {args[0]}"
    if kind == "remove":
        return f"remove {args[0]},{args[1]}"
    if kind == "take":
        return "take " + (" ".join(_f(c) for c in args[0]) or "none")
    if kind == "play":
        if args[0] == "transport":
            return f"play transport {args[1]}"
        return f"play {args[0]} {args[1]},{args[2]} " + " ".join(_f(c) for c in args[3])
    if kind == "propose":
        return f"propose {args[0]}"
    return kind


# ---------------------------------------------------------------------------------------
# Parsing


def words(text: str) -> list[str]:
    """The words of a typed line, lower case, with `q, r` and `(q,r)` written as one word; the German
    and Dutch words of a command (and of a mode, `none`, `all`) in English (aliases.py)."""
    return aliases.english(re.sub(r"\s*,\s*", ",", normalize_text(text)).split(), KINDS)


def read_field(word: str) -> int:
    """The field index a word `q,r` names; IllegalMove says what is wrong."""
    match = _FIELD.match(word)
    if not match:
        raise IllegalMove("A field is written q,r (for example -1,3), not %(word)r.", word=word)
    coord = (int(match.group(1)), int(match.group(2)))
    if coord not in INDEX:
        raise IllegalMove("There is no field %(q)s,%(r)s on the board.", q=coord[0], r=coord[1])
    return INDEX[coord]


def read_piece(word: str) -> int:
    """The piece number (1..3) a word names."""
    if word not in ("1", "2", "3"):
        raise IllegalMove("Your pieces are 1, 2 and 3, not %(piece)r.", piece=word)
    return int(word)


def read_fields(items: list[str]) -> tuple[int, ...]:
    """Field indices in board order, each named once."""
    found = [read_field(w) for w in items]
    if len(set(found)) != len(found):
        raise IllegalMove("Name each field only once.")
    return tuple(sorted(found))


def _expect(items: list[str], count: int, example: str) -> None:
    if len(items) != count:
        raise IllegalMove("Write it like this: %(example)s.", example=example)


def parse(text: str, ring_fill) -> Move:
    """Read a move from text; `ring_fill(star)` gives the fields a bare `play conquer-six` means."""
    found = words(text)
    if not found:
        raise IllegalMove("Write a move, one of: %(kinds)s.", kinds=", ".join(KINDS))
    kind, rest = found[0], found[1:]
    if kind not in KINDS:
        shown = kind if len(kind) <= 20 else kind[:20] + "..."
        raise IllegalMove("There is no move %(kind)r; the moves are: %(kinds)s.", kind=shown, kinds=", ".join(KINDS))
    if kind in ("move", "land", "jump"):
        _expect(rest, 2, f"{kind} 2 -1,3")
        return mv(kind, (read_piece(rest[0]), *FIELDS[read_field(rest[1])]))
    if kind in ("recall", "roll"):
        _expect(rest, 1, f"{kind} 2")
        return mv(kind, (read_piece(rest[0]),))
    if kind == "remove":
        _expect(rest, 1, "remove 4,-3")
        return REMOVE[read_field(rest[0])]
    if kind == "take":
        if rest == ["none"]:
            return take(())
        if not rest:
            raise IllegalMove("Write the fields to take, e.g. take -1,2 0,2, or take none.")
        return take(read_fields(rest))
    if kind == "propose":
        _expect(rest, 1, "propose fast")
        if rest[0] not in Mode.ALL:
            raise IllegalMove("The modes are %(modes)s, not %(mode)r.", modes=", ".join(Mode.ALL), mode=rest[0][:20])
        return PROPOSE[rest[0]]
    if kind == "play":
        return _parse_play(rest, ring_fill)
    _expect(rest, 0, kind)
    return mv(kind)


def _parse_play(rest: list[str], ring_fill) -> Move:
    if not rest:
        raise IllegalMove("Name the card to play: %(cards)s.", cards=", ".join(PLAYABLE))
    label = rest[0]
    if label not in CARD_BY_LABEL:
        raise IllegalMove("There is no card %(card)r; you play %(cards)s.", card=label[:20], cards=", ".join(PLAYABLE))
    card = CARD_BY_LABEL[label]
    if card not in KEEPABLE:
        raise IllegalMove("%(card)s is carried out when it is drawn; you play %(cards)s.", card=label,
                          cards=", ".join(PLAYABLE))
    if card == Card.TRANSPORT:
        _expect(rest, 2, "play transport 2")
        return TRANSPORT[read_piece(rest[1]) - 1]
    if len(rest) < 2:
        raise IllegalMove("Name the star: play %(card)s 2,0 followed by the fields to conquer.", card=label)
    star = read_field(rest[1])
    if not IS_STAR[star]:
        raise IllegalMove("%(q)s,%(r)s is not a star.", q=FIELDS[star][0], r=FIELDS[star][1])
    fields = read_fields(rest[2:]) if len(rest) > 2 else ()
    if not fields and card == Card.CONQUER_SIX:
        fields = ring_fill(star)
    if not fields:
        raise IllegalMove("Name the fields around the star to conquer: play %(card)s 2,0 1,0 2,1 3,-1.", card=label)
    return conquer(card, star, fields)
