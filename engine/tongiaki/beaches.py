"""Small helpers on ship tuples: a beach is a sorted tuple of seats, an island a tuple of beaches.

`ships` (in a state) is a tuple with one island per island tile id (() when the island is
not on the board). Every helper returns new tuples; nothing is changed in place.
"""

from __future__ import annotations

from engine.tongiaki.tiles import PLACES


def put(beach: tuple, seat: int) -> tuple:
    """The beach with one more ship of `seat`."""
    return tuple(sorted(beach + (seat,)))


def take(beach: tuple, seat: int) -> tuple:
    """The beach (or fleet) with one ship of `seat` fewer."""
    i = beach.index(seat)
    return beach[:i] + beach[i + 1:]


def with_beach(ships: tuple, tid: int, b: int, beach: tuple) -> tuple:
    isl = ships[tid]
    return ships[:tid] + (isl[:b] + (beach,) + isl[b + 1:],) + ships[tid + 1:]


def with_island(ships: tuple, tid: int, island: tuple) -> tuple:
    return ships[:tid] + (island,) + ships[tid + 1:]


def full_on(ships: tuple, tid: int) -> list[tuple[int, int]]:
    """The full beaches (tid, b) of one island."""
    places = PLACES[tid]
    return [(tid, b) for b, beach in enumerate(ships[tid]) if len(beach) == places[b]]


def land_targets(island: tuple, tid: int, served: int) -> list[int]:
    """Beaches the next arriving ship may take (T13): each beach with a free place once, first.

    `served` is a bit mask of the beaches that already took a ship in this landing.
    """
    places = PLACES[tid]
    free = [b for b, beach in enumerate(island) if len(beach) < places[b]]
    unserved = [b for b in free if not served >> b & 1]
    return unserved or free
