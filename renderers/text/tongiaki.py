"""Tongiaki in words: islands and their beaches, whose ships lie where, and where each jetty's fleet sails.

Reads only `engine.get("tongiaki").view(state, seat)` (schema in docs/games/tongiaki.md) and
the notation of moves. The only geometry it uses is the engine's step from a hex to its
neighbour on each world side, to follow a fleet from a jetty over water tiles to the
island or open sea it reaches. It does not draw the map: where the tiles lie is the
picture's job.
"""

from __future__ import annotations

import re

from engine.tongiaki.tiles import SIDE_NAMES, STEP

from renderers.text.base import (
    Mark, Parts, Reader, changes, fit, headline, join, plural, recent_moves, standing, wrap,
)

SIDE_INDEX = {name: i for i, name in enumerate(SIDE_NAMES)}
ROUTE_STEPS = 40    # a fleet crosses at most 16 water tiles; the bound only guards against a malformed view
AUTO_SHOWN = 3      # engine-made choices named one by one in "what the last move caused"

_PLACE = re.compile(r"^(place|expand) (.+?) ((?:\d+ ?)+?)(?: from (.+) (\d+))?$")
_EMIGRATE = re.compile(r"^emigrate (.+) (\d+) (\w+)$")
_LAND = re.compile(r"^land (\w+) (.+) (\d+)$")
_TILE = re.compile(r"^tile (.+) (\w+)$")
_KING = re.compile(r"^king (.+)$")


def tile_word(name: str) -> str:
    """An island by its name, a water tile as 'water tile C'."""
    return f"water tile {name}" if len(name) == 1 else name


def ships_word(colours: list[str]) -> str:
    """'2 blue, 1 red' in the order the view lists them (by seat)."""
    counts: dict[str, int] = {}
    for colour in colours:
        counts[colour] = counts.get(colour, 0) + 1
    return ", ".join(f"{n} {c}" for c, n in counts.items())


class Map:
    """The laid tiles by hex and by name, and the routes fleets take from jetties."""

    def __init__(self, view: dict):
        self.tiles = {(t["q"], t["r"]): t for t in view["tiles"]}
        self.named = {t["tile"]: t for t in view["tiles"]}
        self.islands = [t for t in view["tiles"] if t["kind"] == "island"]
        self.water = [t["tile"] for t in view["tiles"] if t["kind"] == "water"]

    def route(self, tile: dict, side: str) -> str:
        """Where a fleet leaving `tile` through the jetty on `side` goes: 'to Fiji', 'over C (risk 3) to open sea'."""
        q, r, d = tile["q"], tile["r"], SIDE_INDEX[side]
        crossed = []
        end = "open sea"
        for _ in range(ROUTE_STEPS):
            q, r = q + STEP[d][0], r + STEP[d][1]
            nxt = self.tiles.get((q, r))
            if nxt is None:
                end = "open sea (a new tile)"
                break
            if nxt["kind"] == "island":
                end = nxt["tile"] + (" (king island: turned back)" if nxt.get("king") else "")
                break
            entry = SIDE_NAMES[(d + 3) % 6]
            track = next((t for t in nxt["tracks"] if entry in t["sides"]), None)
            if track is None:
                end = tile_word(nxt["tile"])
                break
            risk = f"risk {track['risk']}" if track["risk"] else "no risk"
            crossed.append(f"{nxt['tile']} ({risk})")
            exit_side = track["sides"][1] if track["sides"][0] == entry else track["sides"][0]
            d = SIDE_INDEX[exit_side]
        return (f"over {join(crossed)} to " if crossed else "to ") + end

    def block(self, tile: dict, reader: Reader, routes: bool) -> list[str]:
        """An island with a bullet per beach: ships, places and (with routes) where each jetty leads."""
        name = tile["tile"]
        if tile.get("king"):
            seat = reader.seat_of_colour(tile["king"])
            owner = reader.who(seat) if seat is not None else tile["king"]
            return wrap(f"{name} (worth {tile['value']}): king island of {owner}; nobody may expand "
                        f"or land there.")
        lines = wrap(f"{name} (worth {tile['value']}):")
        for beach in tile["beaches"]:
            text = f"beach {beach['beach']}, {plural(beach['places'], 'place')}"
            text += (", full: " if beach["full"] else ": ") + (ships_word(beach["ships"]) or "empty")
            jetties = beach["jetties"]
            if routes:
                ways: dict[str, list[str]] = {}  # jetties whose fleets go the same way are told together
                for side in jetties:
                    ways.setdefault(self.route(tile, side), []).append(side)
                text += "; " + "; ".join(f"{'jetty' if len(sides) == 1 else 'jetties'} {join(sides)} {way}"
                                         for way, sides in ways.items())
            else:
                text += f"; {'jetty' if len(jetties) == 1 else 'jetties'} {' '.join(jetties)}"
            lines += wrap(text, Mark.BULLET)
        return lines

    def line(self, tile: dict, reader: Reader) -> list[str]:
        """An island in one bullet: its beaches and the ships on them, no routes."""
        if tile.get("king"):
            seat = reader.seat_of_colour(tile["king"])
            owner = reader.name(seat) if seat is not None else tile["king"]
            return wrap(f"{tile['tile']} (worth {tile['value']}): king island of {owner}", Mark.BULLET)
        said = [f"beach {b['beach']}{' (full)' if b['full'] else ''}: {ships_word(b['ships'])}"
                for b in tile["beaches"] if b["ships"]]
        empty = [str(b["beach"]) for b in tile["beaches"] if not b["ships"]]
        if empty:
            said.append(f"beach {empty[0]} empty" if len(empty) == 1 else f"beaches {join(empty)} empty")
        return wrap(f"{tile['tile']} (worth {tile['value']}): {'; '.join(said)}", Mark.BULLET)


# --- moves in words -----------------------------------------------------------------------


def _beaches(numbers: str) -> str:
    numbers = numbers.split()
    return ("beach " if len(numbers) == 1 else "beaches ") + join(numbers)


def tell_move(text: str) -> str:
    """One move of the notation as words ('expanded on Samoa, beaches 1 and 3')."""
    if text == "settle":
        return "made a new settlement (all ships off the board)"
    m = _KING.match(text)
    if m:
        return f"became king of {m[1]}"
    m = _PLACE.match(text)
    if m:
        verb, island, numbers, source, source_beach = m.groups()
        if source:
            return f"moved a ship from {source} beach {source_beach} to {island} {_beaches(numbers)}"
        if verb == "expand":
            return f"expanded on {island}, {_beaches(numbers)}"
        return f"placed {'a ship' if len(numbers.split()) == 1 else 'ships'} on {island}, {_beaches(numbers)}"
    m = _EMIGRATE.match(text)
    if m:
        return f"sent the fleet of {m[1]} beach {m[2]} out through jetty {m[3]}"
    m = _TILE.match(text)
    if m:
        return f"laid a tile on the {m[2]} side of {tile_word(m[1])}"
    return f"played {text}"


def tell(notations: list[str]) -> str:
    """A player's run of moves in one sentence; the ships of one landing are told together."""
    parts = []
    i = 0
    while i < len(notations):
        if _TILE.match(notations[i]):
            sides = []
            while i < len(notations) and (m := _TILE.match(notations[i])):
                sides.append(f"the {m[2]} side of {tile_word(m[1])}")
                i += 1
            parts.append(f"laid {'a tile' if len(sides) == 1 else 'tiles'} on {join(sides)}")
            continue
        m = _LAND.match(notations[i])
        if not m:
            parts.append(tell_move(notations[i]))
            i += 1
            continue
        island, colours, beaches = m[2], [], []
        while i < len(notations) and (m := _LAND.match(notations[i])) and m[2] == island:
            colours.append(m[1])
            beaches.append(m[3])
            i += 1
        parts.append(f"landed {ships_word(colours)} on {island}, {_beaches(' '.join(sorted(set(beaches))))}")
    return "; ".join(parts) + "."


def events_sentence(view: dict) -> str:
    """What the last move caused (tiles drawn, crossings, shipwrecks...), or ''."""
    said = []
    autos = []
    for e in view.get("events") or []:
        kind = e.get("event")
        if kind == "draw":
            said.append(f"{tile_word(e['tile'])} was drawn")
        elif kind == "cross":
            said.append(f"a fleet crossed {tile_word(e['tile'])}")
        elif kind == "shipwreck":
            said.append(f"shipwreck on {tile_word(e['tile'])} (risk {e['risk']}): "
                        f"{ships_word(e['ships'])} went home")
        elif kind == "turned_back":
            said.append(f"a fleet was turned back at the king island {e['king_island']} to {e['to']}")
        elif kind == "arrive":
            said.append(f"a fleet of {ships_word(e['ships'])} reached {e['tile']}")
        elif kind == "return":
            said.append(f"{ships_word(e['ships'])} found no free place and went home")
        elif kind == "infinite_chain":
            said.append(f"the chain could never end: {e['tile']} left the game and its ships went home")
        elif kind == "at_sea":
            said.append(f"the fleet of {ships_word(e['ships'])} stays at sea on {tile_word(e['tile'])}")
        elif kind == "auto":
            autos.append(e["move"])
    if autos:
        shown = join(autos[:AUTO_SHOWN]) + (f" and {len(autos) - AUTO_SHOWN} more" if len(autos) > AUTO_SHOWN else "")
        said.append(f"the engine made the only possible {'choice' if len(autos) == 1 else 'choices'}: {shown}")
    return "; ".join(said)


# --- the decision now -----------------------------------------------------------------------


def decision(view: dict) -> str:
    pending = view.get("pending") or {}
    kind = pending.get("decision")
    if kind == "setup":
        return f"place a ship on a beach of Tonga (round {pending.get('round', 1)} of 2)"
    if kind == "action":
        if pending.get("no_ship_on_board"):
            return "no ship on the board: place ships on an island or make a new settlement"
        if pending.get("all_ships_on_board"):
            return "all 15 ships are on the board: expand by moving one, become king or make a new settlement"
        return "expand, become king or make a new settlement"
    if kind == "emigrate":
        return "the ships of a full beach must emigrate"
    if kind == "land":
        return f"land the arriving fleet on {pending.get('island')}"
    if kind == "tile":
        why = "new settlement" if pending.get("purpose") == "settlement" else "new start after an endless chain"
        return f"choose where the next tile of the {why} goes"
    if kind == "place":
        return f"place a ship on a beach of the new island {pending.get('island')}"
    return "decide"


def choices(legal: list[str]) -> list[str]:
    """What the legal moves allow, as sentences that name every island and open position they touch."""
    expand, king, place, moved, emigrate, land, tiles = {}, [], {}, [], {}, {}, {}
    pairs = set()
    settle = False
    for text in legal:
        if text == "settle":
            settle = True
        elif (m := _KING.match(text)):
            king.append(m[1])
        elif (m := _PLACE.match(text)):
            if m[4]:
                moved.append(f"{m[4]} {m[5]}")
                expand.setdefault(m[2], set())
            else:
                (expand if m[1] == "expand" else place).setdefault(m[2], set()).update(m[3].split())
                if m[1] == "place" and len(m[3].split()) > 1:
                    pairs.add(m[2])
        elif (m := _EMIGRATE.match(text)):
            emigrate.setdefault(f"{m[1]} beach {m[2]}", []).append(m[3])
        elif (m := _LAND.match(text)):
            colours, beaches = land.setdefault(m[2], ([], []))
            if m[1] not in colours:
                colours.append(m[1])
            if m[3] not in beaches:
                beaches.append(m[3])
        elif (m := _TILE.match(text)):
            tiles.setdefault(m[1], []).append(m[2])
    said = []
    if expand:
        extra = f" (moving one ship from {join(sorted(set(moved)), 'or')})" if moved else ""
        said.append(f"expand on {join(list(expand), 'or')}{extra}")
    if king:
        said.append(f"become king of {join(king, 'or')}")
    for island, beaches in place.items():
        if island in pairs:  # T17: two ships on Tonga
            said.append(f"place two ships on {island}, on two of beaches {join(sorted(beaches))}")
        else:
            said.append(f"place a ship on {island}, beach {join(sorted(beaches), 'or')}")
    if settle:
        said.append("make a new settlement (settle)")
    for beach, sides in emigrate.items():
        said.append(f"send out the fleet of {beach} through jetty {join(sides, 'or')}")
    for island, (colours, beaches) in land.items():
        said.append(f"land a {join(colours, 'or')} ship on {island}, beach {join(beaches, 'or')}")
    if tiles:
        said.append("lay the next tile next to " + join(
            [f"{tile_word(t)} ({' '.join(sides)})" for t, sides in tiles.items()], "or"))
    return wrap("You may " + join(said, "or") + ".") if said else []


def places(legal: list[str]) -> list[str]:
    """The islands the legal moves name, in the order first named."""
    found: list[str] = []
    for text in legal:
        for m in (_KING.match(text), _PLACE.match(text), _EMIGRATE.match(text), _LAND.match(text)):
            if m:
                names = [m[2] if m.re in (_PLACE, _LAND) else m[1]]
                if m.re is _PLACE and m[4]:
                    names.append(m[4])
                found += [n for n in names if n not in found]
    return found


# --- the whole text -----------------------------------------------------------------------


def parts(view: dict, reader: Reader) -> Parts:
    """Head, standing, changes, and the board part as a function of its line budget."""
    board = Map(view)
    over = view.get("pending") is None
    result = view.get("result") or {}
    if over:
        head = wrap(f"Tongiaki, after {plural(view.get('turn', 0), 'turn')}. The game is over. "
                    f"{result.get('reason', 'The pile is used up.')}")
    else:
        head = wrap(f"Tongiaki, turn {view.get('turn', 0) + 1}. "
                    + headline(reader, view.get("to_move"), decision(view)))
    details = {}
    for seat in view["seats"]:
        kings = seat["king_islands"]
        present = f"on {plural(seat['islands'], 'island')}" if seat["islands"] else "on no island"
        details[seat["seat"]] = (f"{present}, {seat['supply']} of 15 ships in supply"
                                 + (f", king of {join(kings)}" if kings else ""))
    lines = standing(reader, view["scores"], details, over=over, ranks=result.get("ranks"))
    pile = view["pile"]
    if not over:
        lines += wrap(f"The pile holds {plural(pile['islands'], 'island')} and {plural(pile['water'], 'water tile')}; "
                      "the game ends when the last of either kind is drawn.")
    if view.get("at_sea"):
        lines += wrap(f"At sea on {tile_word(view['at_sea']['tile'])}: {ships_word(view['at_sea']['ships'])} "
                      "(they score nothing).")
    if view.get("removed"):
        lines += wrap(f"Left the game after an endless chain: {join(view['removed'])}.")
    moves = recent_moves(reader, view.get("last_move"))
    caused = events_sentence(view)

    def told(room: int) -> list[str]:
        return changes(reader, moves, lambda seat, notations: tell(notations), room,
                       f"The last move caused: {caused}." if caused else "")

    def board_part(budget: int) -> list[str]:
        return board_lines(view, board, reader, budget)

    return Parts(head, lines, told, board_part)


def board_lines(view: dict, board: Map, reader: Reader, budget: int) -> list[str]:
    """The islands the reader's moves name (in detail, with routes) and, as room allows, the rest."""
    legal = reader.legal
    lines = choices(legal)
    named = [board.named[n] for n in places(legal) if n in board.named]
    # Where each jetty's fleet would sail is what an emigration or an expansion that fills a
    # beach turns on; without room for it, the beaches alone; then one line per island.
    for form in (lambda t: board.block(t, reader, True), lambda t: board.block(t, reader, False),
                 lambda t: board.line(t, reader)):
        blocks = [form(t) for t in named]
        if len(lines) + sum(map(len, blocks)) <= budget - 1:
            break
    shown, left = fit(blocks, budget - len(lines) - 1)
    lines += shown
    if left:
        lines += wrap(f"and {plural(left, 'more island')}", Mark.BULLET)
    others = [t for t in board.islands if t not in named]
    peopled = [t for t in others if t.get("king") or any(b["ships"] for b in t["beaches"])]
    empty = [f"{t['tile']} ({t['value']})" for t in others if t not in peopled]
    extra = wrap(f"Nobody on {join(empty)}.", Mark.BULLET) if empty else []
    room = budget - len(lines) - 1 - len(extra) - 1
    if others and room > 0:
        shown, left = fit([board.line(t, reader) for t in peopled], room - 2)
        if left:
            rest = [t["tile"] for t in peopled[len(peopled) - left:]]
            shown += wrap(f"{'Ships also' if shown else 'Ships'} on {join(rest)}.", Mark.BULLET)
        lines += ["Elsewhere:" if named else "The islands:"] + shown + extra
    if board.water and len(lines) + 2 <= budget:
        lines += wrap(f"Water tiles on the table: {' '.join(board.water)} (their tracks are in the picture).")
    return lines
