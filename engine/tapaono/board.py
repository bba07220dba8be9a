"""The Tapaono board and command deck as data (P1-P4), both PROVISIONAL.

The published rules give neither the board layout nor the make-up of the 40 command
cards; the rules digest fixes both (P3, P4) and this module holds them as plain data so
the published versions can replace them without touching the rules code. Everything the
rules need fast (field indices, neighbours, stars, spawn entries) is precomputed here once.

Coordinates are axial (q, r) with s = -q - r, pointy-top hexes, r growing downwards. A
field is addressed by its index into FIELDS (row by row, top to bottom, left to right).
This module does not know about players' markers, pieces or turns.
"""

from __future__ import annotations

from enum import IntEnum

PROVISIONAL = True  # P3 and P4 are the digest's choice, not the publisher's data

RADIUS = 7
CORNERS = ((7, 0), (0, 7), (-7, 7), (-7, 0), (0, -7), (7, -7))
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))  # E, NE, NW, W, SW, SE
STAR_COORDS = ((2, 0), (0, 2), (-2, 2), (-2, 0), (0, -2), (2, -2),
               (4, -2), (2, 2), (-2, 4), (-4, 2), (-2, -2), (2, -4))
SPAWN_ENTRY_COORDS = (((2, -7), (3, -7), (4, -7), (5, -7)),    # first seat: the four fields with r = -7
                      ((-5, 7), (-4, 7), (-3, 7), (-2, 7)))    # second seat: the four with r = 7
PIECES = 3          # P1: pieces per player
MARKERS = 100       # P1: field markers per player
DEPOT_SIZE = 5      # P8
COMMANDS_PER_ROUND = 5  # P8
ENTRY_ROUNDS = 3    # P6: one piece per round enters in a player's first three rounds


def distance(q: int, r: int) -> int:
    """Hex distance of (q, r) from the centre."""
    return max(abs(q), abs(r), abs(q + r))


def _on_board(q: int, r: int) -> bool:
    if distance(q, r) > RADIUS:
        return False
    if distance(q, r) == RADIUS:
        return all(max(abs(q - cq), abs(r - cr), abs(q - cq + r - cr)) > 1 for cq, cr in CORNERS)
    return True


FIELDS: tuple[tuple[int, int], ...] = tuple(
    (q, r) for r in range(-RADIUS, RADIUS + 1) for q in range(-RADIUS, RADIUS + 1) if _on_board(q, r))
INDEX: dict[tuple[int, int], int] = {coord: i for i, coord in enumerate(FIELDS)}
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(INDEX[(q + dq, r + dr)] for dq, dr in DIRECTIONS if (q + dq, r + dr) in INDEX) for q, r in FIELDS)
STARS: tuple[int, ...] = tuple(INDEX[c] for c in STAR_COORDS)
IS_STAR: tuple[bool, ...] = tuple(i in STARS for i in range(len(FIELDS)))
STAR_RING: dict[int, tuple[int, ...]] = {s: NEIGHBOURS[s] for s in STARS}
INNER_STARS: tuple[int, ...] = tuple(s for s in STARS if distance(*FIELDS[s]) == 2)
OUTER_STARS: tuple[int, ...] = tuple(s for s in STARS if distance(*FIELDS[s]) != 2)
SPAWN_ENTRIES: tuple[tuple[int, ...], ...] = tuple(tuple(INDEX[c] for c in side) for side in SPAWN_ENTRY_COORDS)
CONQUERABLE = len(FIELDS) - len(STARS)

assert len(FIELDS) == 151 and len(STARS) == 12 and CONQUERABLE == 139  # P2
assert all(len(STAR_RING[s]) == 6 for s in STARS)


# ---------------------------------------------------------------------------------------
# Command cards (P4, provisional counts)


class Card(IntEnum):
    """The eight command cards; the value is the card's code in a state."""

    TRANSPORT = 0
    CONQUER_SIX = 1
    CONQUER_THREE = 2
    RAID = 3
    LOSS = 4
    LANDING = 5
    STAR_JUMP = 6
    RECALL = 7

    @property
    def label(self) -> str:
        """The card's name in notation and views: 'conquer-three', 'star-jump', ..."""
        return self.name.lower().replace("_", "-")


CARD_COUNTS = {Card.TRANSPORT: 8, Card.CONQUER_SIX: 4, Card.CONQUER_THREE: 8, Card.RAID: 5,
               Card.LOSS: 5, Card.LANDING: 4, Card.STAR_JUMP: 3, Card.RECALL: 3}
KEEPABLE = frozenset({Card.TRANSPORT, Card.CONQUER_SIX, Card.CONQUER_THREE})  # may go to the depot
DECK: tuple[int, ...] = tuple(int(card) for card in Card for _ in range(CARD_COUNTS[card]))
CARD_BY_LABEL = {card.label: card for card in Card}
LABELS: tuple[str, ...] = tuple(card.label for card in Card)  # by card code, without Enum calls

assert len(DECK) == 40
