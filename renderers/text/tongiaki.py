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

from renderers.i18n import Texts, colour_word
from renderers.text.base import (
    Mark, Parts, Reader, changes, engine_chose, headline, join, recent_moves, sentence, standing, wrap,
)

SIDE_INDEX = {name: i for i, name in enumerate(SIDE_NAMES)}
ROUTE_STEPS = 40    # a fleet crosses at most 16 water tiles; the bound only guards against a malformed view
AUTO_SHOWN = 3      # engine-made choices named one by one in "what the last move caused"

_PLACE = re.compile(r"^(place|expand) (.+?) ((?:\d+ ?)+?)(?: from (.+) (\d+))?$")
_EMIGRATE = re.compile(r"^emigrate (.+) (\d+) (\w+)$")
_LAND = re.compile(r"^land (\w+) (.+) (\d+)$")
_TILE = re.compile(r"^tile (.+) (\w+)$")
_KING = re.compile(r"^king (.+)$")


def tile_word(t: Texts, name: str) -> str:
    """An island by its name, a water tile as 'water tile C'."""
    return t.gettext("water tile %(tile)s", tile=name) if len(name) == 1 else name


def ships_word(t: Texts, colours: list[str]) -> str:
    """'2 blue, 1 red' in the order the view lists them (by seat), the colours in the reader's words."""
    counts: dict[str, int] = {}
    for colour in colours:
        counts[colour] = counts.get(colour, 0) + 1
    return ", ".join(f"{n} {colour_word(t, c)}" for c, n in counts.items())


def _beaches(t: Texts, numbers: str) -> str:
    """'beach 2', 'beaches 1 and 3'."""
    numbers = numbers.split()
    return t.ngettext("beach %(beaches)s", "beaches %(beaches)s", len(numbers), beaches=join(t, numbers))


class Map:
    """The laid tiles by hex and by name, and the routes fleets take from jetties."""

    def __init__(self, view: dict, t: Texts):
        self.t = t
        self.tiles = {(tile["q"], tile["r"]): tile for tile in view["tiles"]}
        self.named = {tile["tile"]: tile for tile in view["tiles"]}
        self.islands = [tile for tile in view["tiles"] if tile["kind"] == "island"]
        self.water = [tile["tile"] for tile in view["tiles"] if tile["kind"] == "water"]

    def route(self, tile: dict, side: str) -> str:
        """Where a fleet leaving `tile` through the jetty on `side` goes: 'to Fiji', 'over C (risk 3) to open sea'."""
        t = self.t
        q, r, d = tile["q"], tile["r"], SIDE_INDEX[side]
        crossed = []
        end = t.gettext("to open sea")
        for _ in range(ROUTE_STEPS):
            q, r = q + STEP[d][0], r + STEP[d][1]
            nxt = self.tiles.get((q, r))
            if nxt is None:
                end = t.gettext("to open sea (a new tile)")
                break
            if nxt["kind"] == "island":
                end = (t.gettext("to %(island)s (king island: turned back)", island=nxt["tile"]) if nxt.get("king")
                       else t.gettext("to %(island)s", island=nxt["tile"]))
                break
            entry = SIDE_NAMES[(d + 3) % 6]
            track = next((k for k in nxt["tracks"] if entry in k["sides"]), None)
            if track is None:
                end = (t.gettext("to water tile %(tile)s", tile=nxt["tile"]) if len(nxt["tile"]) == 1
                       else t.gettext("to %(island)s", island=nxt["tile"]))
                break
            crossed.append(t.gettext("%(tile)s (risk %(risk)s)", tile=nxt["tile"], risk=track["risk"])
                           if track["risk"] else t.gettext("%(tile)s (no risk)", tile=nxt["tile"]))
            exit_side = track["sides"][1] if track["sides"][0] == entry else track["sides"][0]
            d = SIDE_INDEX[exit_side]
        return t.gettext("over %(tiles)s %(destination)s", tiles=join(t, crossed), destination=end) if crossed \
            else end

    def block(self, tile: dict, reader: Reader, routes: bool) -> list[str]:
        """An island with a bullet per beach: ships, places and (with routes) where each jetty leads."""
        t = self.t
        name = tile["tile"]
        if tile.get("king"):
            seat = reader.seat_of_colour(tile["king"])
            owner = reader.who(seat) if seat is not None else tile["king"]
            return wrap(t.gettext("%(island)s (worth %(value)s): king island of %(owner)s; nobody may expand or "
                                  "land there.", island=name, value=tile["value"], owner=owner))
        lines = wrap(t.gettext("%(island)s (worth %(value)s):", island=name, value=tile["value"]))
        for beach in tile["beaches"]:
            values = {"beach": beach["beach"], "ships": ships_word(t, beach["ships"]) or t.gettext("empty")}
            if beach["full"]:
                text = t.ngettext("beach %(beach)s, %(num)d place, full: %(ships)s",
                                  "beach %(beach)s, %(num)d places, full: %(ships)s", beach["places"], **values)
            else:
                text = t.ngettext("beach %(beach)s, %(num)d place: %(ships)s",
                                  "beach %(beach)s, %(num)d places: %(ships)s", beach["places"], **values)
            jetties = beach["jetties"]
            if routes:
                ways: dict[str, list[str]] = {}  # jetties whose fleets go the same way are told together
                for side in jetties:
                    ways.setdefault(self.route(tile, side), []).append(side)
                text += "; " + "; ".join(t.ngettext("jetty %(sides)s %(way)s", "jetties %(sides)s %(way)s",
                                                    len(sides), sides=join(t, sides), way=way)
                                         for way, sides in ways.items())
            else:
                text += "; " + t.ngettext("jetty %(sides)s", "jetties %(sides)s", len(jetties), sides=" ".join(jetties))
            lines += wrap(text, Mark.BULLET)
        return lines

    def line(self, tile: dict, reader: Reader) -> list[str]:
        """An island in one bullet: its beaches and the ships on them, no routes."""
        return wrap(self.words(tile, reader), Mark.BULLET)

    def words(self, tile: dict, reader: Reader, empties: bool = True) -> str:
        """An island in words: its beaches with the ships on them (and, with `empties`, those without)."""
        t = self.t
        if tile.get("king"):
            seat = reader.seat_of_colour(tile["king"])
            owner = reader.name(seat) if seat is not None else tile["king"]
            return t.gettext("%(island)s (worth %(value)s): king island of %(owner)s", island=tile["tile"],
                             value=tile["value"], owner=owner)
        said = []
        for b in tile["beaches"]:
            if b["ships"] and b["full"]:
                said.append(t.gettext("beach %(beach)s (full): %(ships)s", beach=b["beach"],
                                      ships=ships_word(t, b["ships"])))
            elif b["ships"]:
                said.append(t.gettext("beach %(beach)s: %(ships)s", beach=b["beach"], ships=ships_word(t, b["ships"])))
        empty = [str(b["beach"]) for b in tile["beaches"] if not b["ships"]]
        if empty and empties:
            said.append(t.ngettext("beach %(beaches)s empty", "beaches %(beaches)s empty", len(empty),
                                   beaches=join(t, empty)))
        return t.gettext("%(island)s (worth %(value)s): %(beaches)s", island=tile["tile"], value=tile["value"],
                         beaches="; ".join(said))


# --- moves in words -----------------------------------------------------------------------


def tell_move(t: Texts, text: str) -> str:
    """What one move of the notation did ('expanded on Samoa, beaches 1 and 3')."""
    if text == "settle":
        return t.gettext("made a new settlement (all ships off the board)")
    m = _KING.match(text)
    if m:
        return t.gettext("became king of %(island)s", island=m[1])
    m = _PLACE.match(text)
    if m:
        verb, island, numbers, source, source_beach = m.groups()
        beaches = _beaches(t, numbers)
        if source:
            return t.gettext("moved a ship from %(source)s beach %(beach)s to %(island)s %(beaches)s", source=source,
                             beach=source_beach, island=island, beaches=beaches)
        if verb == "expand":
            return t.gettext("expanded on %(island)s, %(beaches)s", island=island, beaches=beaches)
        return t.ngettext("placed a ship on %(island)s, %(beaches)s", "placed ships on %(island)s, %(beaches)s",
                          len(numbers.split()), island=island, beaches=beaches)
    m = _EMIGRATE.match(text)
    if m:
        return t.gettext("sent the fleet of %(island)s beach %(beach)s out through jetty %(side)s", island=m[1],
                         beach=m[2], side=m[3])
    m = _TILE.match(text)
    if m:
        return t.gettext("laid a tile on the %(side)s side of %(tile)s", side=m[2], tile=tile_word(t, m[1]))
    m = _LAND.match(text)
    if m:  # T13: one ship of the arrived fleet, of that colour, onto that beach
        return t.gettext("landed one %(colour)s ship on %(island)s, beach %(beach)s",
                         colour=colour_word(t, m[1]), island=m[2], beach=m[3])
    return t.gettext("played %(move)s", move=text)


def tell(t: Texts, notations: list[str]) -> str:
    """What a player's run of moves did, in one sentence; the ships of one landing are told together."""
    parts = []
    i = 0
    while i < len(notations):
        if _TILE.match(notations[i]):
            sides = []
            while i < len(notations) and (m := _TILE.match(notations[i])):
                sides.append(t.gettext("the %(side)s side of %(tile)s", side=m[2], tile=tile_word(t, m[1])))
                i += 1
            parts.append(t.ngettext("laid a tile on %(sides)s", "laid tiles on %(sides)s", len(sides),
                                    sides=join(t, sides)))
            continue
        m = _LAND.match(notations[i])
        if not m:
            parts.append(tell_move(t, notations[i]))
            i += 1
            continue
        island, colours, beaches = m[2], [], []
        while i < len(notations) and (m := _LAND.match(notations[i])) and m[2] == island:
            colours.append(m[1])
            beaches.append(m[3])
            i += 1
        if len(colours) == 1:
            parts.append(tell_move(t, f"land {colours[0]} {island} {beaches[0]}"))
            continue
        parts.append(t.gettext("landed ships of the fleet on %(island)s, %(beaches)s: %(ships)s",
                               ships=ships_word(t, colours), island=island,
                               beaches=_beaches(t, " ".join(sorted(set(beaches))))))
    return "; ".join(parts)


def events_sentence(t: Texts, view: dict) -> str:
    """What the last move caused (tiles drawn, crossings, shipwrecks...), or ''."""
    said = []
    autos = []
    for e in view.get("events") or []:
        kind = e.get("event")
        if kind == "draw":
            said.append(t.gettext("%(tile)s was drawn", tile=tile_word(t, e["tile"])))
        elif kind == "cross":
            said.append(t.gettext("a fleet crossed %(tile)s", tile=tile_word(t, e["tile"])))
        elif kind == "shipwreck":
            said.append(t.gettext("shipwreck on %(tile)s (risk %(risk)s): %(ships)s went home",
                                  tile=tile_word(t, e["tile"]), risk=e["risk"], ships=ships_word(t, e["ships"])))
        elif kind == "turned_back":
            said.append(t.gettext("a fleet was turned back at the king island %(island)s to %(to)s",
                                  island=e["king_island"], to=e["to"]))
        elif kind == "arrive":
            said.append(t.gettext("a fleet of %(ships)s reached %(tile)s", ships=ships_word(t, e["ships"]),
                                  tile=e["tile"]))
        elif kind == "return":
            said.append(t.gettext("%(ships)s found no free place and went home", ships=ships_word(t, e["ships"])))
        elif kind == "infinite_chain":
            said.append(t.gettext("the chain could never end: %(tile)s left the game and its ships went home",
                                  tile=e["tile"]))
        elif kind == "at_sea":
            said.append(t.gettext("the fleet of %(ships)s stays at sea on %(tile)s", ships=ships_word(t, e["ships"]),
                                  tile=tile_word(t, e["tile"])))
        elif kind == "auto":
            autos.append(e["move"])
    if autos:
        shown = join(t, [tell_move(t, move) for move in autos[:AUTO_SHOWN]])  # in words, not notation
        if len(autos) > AUTO_SHOWN:
            shown = t.ngettext("%(items)s and %(num)d more", "%(items)s and %(num)d more", len(autos) - AUTO_SHOWN,
                               items=shown)
        said.append(t.ngettext("the engine made the only possible choice: %(moves)s",
                               "the engine made the only possible choices: %(moves)s", len(autos), moves=shown))
    return "; ".join(said)


# --- the decision now -----------------------------------------------------------------------


def decision(t: Texts, view: dict) -> str:
    pending = view.get("pending") or {}
    kind = pending.get("decision")
    if kind == "setup":
        return t.gettext("place a ship on a beach of Tonga (round %(round)s of 2)", round=pending.get("round", 1))
    if kind == "action":
        if pending.get("no_ship_on_board"):
            return t.gettext("no ship on the board: place ships on an island or make a new settlement")
        if pending.get("all_ships_on_board"):
            return t.gettext("all 15 ships are on the board: expand by moving one, become king or make a new "
                             "settlement")
        return t.gettext("expand, become king or make a new settlement")
    if kind == "emigrate":
        return t.gettext("the ships of a full beach must emigrate")
    if kind == "land":
        return t.gettext("land the arriving fleet on %(island)s", island=pending.get("island"))
    if kind == "tile":
        if pending.get("purpose") == "settlement":
            return t.gettext("choose where the next tile of the new settlement goes")
        return t.gettext("choose where the next tile of the new start after an endless chain goes")
    if kind == "place":
        return t.gettext("place a ship on a beach of the new island %(island)s", island=pending.get("island"))
    return t.gettext("decide")


def choices(t: Texts, legal: list[str]) -> list[str]:
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
            emigrate.setdefault((m[1], m[2]), []).append(m[3])
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
        islands = join(t, list(expand), "or")
        if moved:
            said.append(t.gettext("expand on %(islands)s (moving one ship from %(sources)s)", islands=islands,
                                  sources=join(t, sorted(set(moved)), "or")))
        else:
            said.append(t.gettext("expand on %(islands)s", islands=islands))
    if king:
        said.append(t.gettext("become king of %(islands)s", islands=join(t, king, "or")))
    for island, beaches in place.items():
        if island in pairs:  # T17: two ships on Tonga
            said.append(t.gettext("place two ships on %(island)s, on two of beaches %(beaches)s", island=island,
                                  beaches=join(t, sorted(beaches))))
        else:
            said.append(t.gettext("place a ship on %(island)s, beach %(beaches)s", island=island,
                                  beaches=join(t, sorted(beaches), "or")))
    if settle:
        said.append(t.gettext("make a new settlement (settle)"))
    for (island, beach), sides in emigrate.items():
        said.append(t.gettext("send out the fleet of %(island)s beach %(beach)s through jetty %(sides)s",
                              island=island, beach=beach, sides=join(t, sides, "or")))
    for island, (colours, beaches) in land.items():
        said.append(t.gettext("land a %(colours)s ship on %(island)s, beach %(beaches)s",
                              colours=join(t, [colour_word(t, c) for c in colours], "or"), island=island,
                              beaches=join(t, beaches, "or")))
    if tiles:
        said.append(t.gettext("lay the next tile next to %(places)s", places=join(
            t, [f"{tile_word(t, tile)} ({' '.join(sides)})" for tile, sides in tiles.items()], "or")))
    return wrap(t.gettext("You may %(choices)s.", choices=join(t, said, "or"))) if said else []


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
    t = reader.texts
    board = Map(view, t)
    over = view.get("pending") is None
    result = view.get("result") or {}
    if over:
        head = wrap(t.ngettext("Tongiaki, after %(num)d turn. The game is over. %(reason)s",
                               "Tongiaki, after %(num)d turns. The game is over. %(reason)s", view.get("turn", 0),
                               reason=result["reason"] if "reason" in result else t.gettext("The pile is used up.")))
    else:
        head = wrap(t.gettext("Tongiaki, turn %(turn)s.", turn=view.get("turn", 0) + 1) + " "
                    + headline(reader, view.get("to_move"), decision(t, view)))
    details = {}
    for seat in view["seats"]:
        kings = seat["king_islands"]
        values = {"supply": seat["supply"], "islands": join(t, kings)}
        if kings:
            details[seat["seat"]] = t.ngettext(
                "on %(num)d island, %(supply)s of 15 ships in supply, king of %(islands)s",
                "on %(num)d islands, %(supply)s of 15 ships in supply, king of %(islands)s", seat["islands"],
                **values) \
                if seat["islands"] else t.gettext("on no island, %(supply)s of 15 ships in supply, king of "
                                                  "%(islands)s", **values)
        else:
            details[seat["seat"]] = t.ngettext(
                "on %(num)d island, %(supply)s of 15 ships in supply",
                "on %(num)d islands, %(supply)s of 15 ships in supply", seat["islands"], **values) \
                if seat["islands"] else t.gettext("on no island, %(supply)s of 15 ships in supply", **values)
    lines = standing(reader, view["scores"], details, over=over, ranks=result.get("ranks"))
    pile = view["pile"]
    if not over:
        lines += wrap(t.gettext("The pile holds %(islands)s and %(water)s; the game ends when the last of either "
                                "kind is drawn.",
                                islands=t.ngettext("%(num)d island", "%(num)d islands", pile["islands"]),
                                water=t.ngettext("%(num)d water tile", "%(num)d water tiles", pile["water"])))
    if view.get("at_sea"):
        lines += wrap(t.gettext("At sea on %(tile)s: %(ships)s (they score nothing).",
                                tile=tile_word(t, view["at_sea"]["tile"]),
                                ships=ships_word(t, view["at_sea"]["ships"])))
    if view.get("removed"):
        lines += wrap(t.gettext("Left the game after an endless chain: %(islands)s.",
                                islands=join(t, view["removed"])))
    moves = recent_moves(reader, view.get("last_move"))
    caused = events_sentence(t, view)

    def told(room: int) -> list[str]:
        return changes(reader, moves, lambda seat, notations: tell(t, notations), room,
                       t.gettext("The last move caused: %(events)s.", events=caused) if caused else "")

    def board_part(budget: int) -> list[str]:
        return board_lines(view, board, reader, budget)

    least = len(choices(t, reader.legal)) + len(short_lines(board, reader))
    return Parts(head, lines, told, board_part, least)


def board_lines(view: dict, board: Map, reader: Reader, budget: int) -> list[str]:
    """The islands the reader's moves name (in detail, with routes) and every other island on the table.

    Each island with its ships, beach by beach, every king island and the water tiles on the
    table are always told (issue 33 item 7): when the detailed forms do not fit, all islands
    are told in one paragraph (`short_lines`), which board_text keeps room for."""
    t = reader.texts
    lines = choices(t, reader.legal)
    named = [board.named[n] for n in places(reader.legal) if n in board.named]
    others = [tile for tile in board.islands if tile not in named]
    peopled = [tile for tile in others if tile.get("king") or any(b["ships"] for b in tile["beaches"])]
    empty = [f"{tile['tile']} ({tile['value']})" for tile in others if tile not in peopled]
    rest = []
    if others:
        rest = [t.gettext("Elsewhere:") if named else t.gettext("The islands:")]
        rest += [line for tile in peopled for line in board.line(tile, reader)]
        if empty:
            rest += wrap(t.gettext("Nobody on %(islands)s.", islands=join(t, empty)), Mark.BULLET)
    rest += water_lines(t, board)
    # Where each jetty's fleet would sail is what an emigration or an expansion that fills a
    # beach turns on; without room for it, the beaches alone; then one line per island.
    for form in (lambda tile: board.block(tile, reader, True), lambda tile: board.block(tile, reader, False),
                 lambda tile: board.line(tile, reader)):
        shown = [line for tile in named for line in form(tile)]
        if len(lines) + len(shown) + len(rest) <= budget:
            return lines + shown + rest
    return lines + short_lines(board, reader)


def water_lines(t: Texts, board: Map) -> list[str]:
    """The water tiles on the table, by letter."""
    if not board.water:
        return []
    return wrap(t.gettext("Water tiles on the table: %(tiles)s (their tracks are in the picture).",
                          tiles=" ".join(board.water)))


def short_lines(board: Map, reader: Reader) -> list[str]:
    """Every island on the table in one paragraph: the ships on each beach, the king islands, the empty
    islands; then the water tiles. The shortest form of the whole board."""
    t = reader.texts
    peopled = [tile for tile in board.islands if tile.get("king") or any(b["ships"] for b in tile["beaches"])]
    empty = [f"{tile['tile']} ({tile['value']})" for tile in board.islands if tile not in peopled]
    said = [board.words(tile, reader, empties=False) + "." for tile in peopled]
    if empty:
        said.append(t.gettext("Nobody on %(islands)s.", islands=join(t, empty)))
    lines = [t.gettext("The islands:")] + wrap(" ".join(said)) if said else []
    return lines + water_lines(t, board)


# --- Tongiaki: the view after a move lists everything that followed it, the engine's moves among it --------


def tell_since(move: dict, reader: Reader) -> tuple[list[str], str]:
    t = reader.texts
    final = move["views"][-1]
    colours = final.get("colours") or []
    said: list[str] = []
    run: list[str] = []
    run_colour = None

    def flush():
        if run:
            seat = colours.index(run_colour) if run_colour in colours else None
            said.append(engine_chose(reader, seat, tell(t, run)))
            run.clear()

    for e in final.get("events") or []:
        kind = e.get("event")
        if kind == "auto":
            if run and e.get("colour") != run_colour:
                flush()
            run_colour = e.get("colour")
            run.append(e["move"])
            continue
        flush()
        text = _tongiaki_event(t, e)
        if text:
            said.append(text)
    flush()
    return said, tell_move(t, move["notation"])


def _tongiaki_event(t: Texts, e: dict) -> str:
    """One thing that happened in a Tongiaki move (not an automatic move), as a sentence: the board's news
    tells each in the same words."""
    if e.get("event") == "end":
        return t.gettext("The game is over.")
    text = events_sentence(t, {"events": [e]})
    return sentence(text) if text else ""
