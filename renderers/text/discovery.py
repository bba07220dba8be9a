"""Carcassonne: The Discovery in words: followers and their regions, the tile to place and where it fits.

Reads only `engine.get("discovery").view(state, seat)` (schema in docs/games/discovery.md)
and the notation of moves. An open square is told by the terrain each side must show and
by who already has a follower in the region it would join; the tiles on the board are
not listed one by one (84 squares of terrain are the picture's job). In the double-tile
variant the text shows the reader's own tiles, and of the others only how many they hold,
exactly as the view does.
"""

from __future__ import annotations

import re

from engine.discovery.tiles import SIDES, STEP

from renderers.text.base import (
    LISTED, Mark, Parts, Reader, changes, headline, join, plural, recent_moves, runs, some, standing, wrap,
)

TERRAIN = {"G": "grassland", "M": "mountain", "S": "sea"}
ROLE = {"grassland": "explorer", "mountain": "brigand", "sea": "navigator"}
OPPOSITE = {"N": "S", "E": "W", "S": "N", "W": "E"}
FOLLOWERS = 4  # D1: five followers, one of them the score marker

_PLACE = re.compile(r"^place (?:#(\d+) )?(-?\d+),(-?\d+) (\d+)$")
_DEPLOY = re.compile(r"^deploy (.+)$")
_REMOVE = re.compile(r"^remove (-?\d+),(-?\d+) (.+)$")


def square(x, y) -> str:
    return f"{x},{y}"


def segment_word(terrain: str, name: str) -> str:
    """'mountain E+W', or 'lake' / 'island' for a segment that touches no side."""
    if name == terrain:
        return {"sea": "lake", "grassland": "island"}.get(terrain, f"inner {terrain}")
    return f"{terrain} {name}"


def tile_words(tile: dict) -> str:
    """A tile type in words: its segments (named by the sides they touch) and its port cities."""
    terrain_of = {seg["name"]: seg["terrain"] for seg in tile["segments"]}
    text = ", ".join(segment_word(seg["terrain"], seg["name"]) for seg in tile["segments"])
    cities = [f"{segment_word(terrain_of[c['land']], c['land'])} by {segment_word('sea', c['sea'])}"
              for c in tile["cities"]]
    if cities:
        text += f"; {'a port city' if len(cities) == 1 else 'port cities'} on {join(cities)}"
    return text


class Board:
    """The placed tiles by square, the size of each region and the followers in it."""

    def __init__(self, view: dict):
        self.tiles = {(t["x"], t["y"]): t for t in view["board"]}
        self.region_tiles: dict[int, set] = {}
        for t in view["board"]:
            for seg in t["segments"]:
                self.region_tiles.setdefault(seg["region"], set()).add((t["x"], t["y"]))
        self.followers = view["followers"]

    def segment(self, x: int, y: int, name: str) -> dict | None:
        tile = self.tiles.get((x, y))
        return next((s for s in tile["segments"] if s["name"] == name), None) if tile else None

    def facing(self, x: int, y: int, side: str) -> dict | None:
        """The segment of the neighbouring tile that touches square (x, y) on `side`."""
        dx, dy = STEP[SIDES.index(side)]
        tile = self.tiles.get((x + dx, y + dy))
        if tile is None:
            return None
        back = OPPOSITE[side]
        return next((s for s in tile["segments"] if back in s["name"].split("+")), None)

    def holders(self, region: int, reader: Reader) -> str:
        """Whose followers are in a region: "Bea's brigand", 'your navigator and Cid's', or ''."""
        found = [f for f in self.followers if f["region"] == region]
        if not found:
            return ""
        role = found[0]["role"]
        owners = [reader.whose(f["seat"]).replace("yours", "your") for f in found]
        return f"{join(owners)} {role}{'s' if len(found) > 1 else ''}"

    def region_words(self, seg: dict, reader: Reader) -> str:
        """'mountain of 3 tiles, complete, with Bea's brigand'."""
        size = len(self.region_tiles.get(seg["region"], ()))
        text = f"{seg['terrain']} of {plural(size, 'tile')}" + (", complete" if seg["complete"] else "")
        held = self.holders(seg["region"], reader)
        return text + (f", with {held}" if held else "")


def follower_words(f: dict) -> str:
    """'brigand at 0,0 E+W (4 tiles, complete, 2 port cities): worth 4'."""
    facts = [plural(f["region_tiles"], "tile")]
    if f["region_complete"]:
        facts.append("complete")
    if f["terrain"] != "grassland":
        facts.append(plural(f["region_cities"], "port city", "port cities"))
    return f"{f['role']} at {square(f['x'], f['y'])} {f['segment']} ({', '.join(facts)}): worth {f['value']}"


# --- moves in words -----------------------------------------------------------------------


def tell(notations: list[str], board: Board, last: dict | None, is_last_run: bool) -> str:
    """A player's turn(s) in one sentence: where the tile went and what the follower did."""
    parts = []
    where = None
    for i, text in enumerate(notations):
        m = _PLACE.match(text)
        if m:
            where = (int(m[2]), int(m[3]))
            tile = board.tiles.get(where)
            shows = f" ({', '.join(f'{s} {TERRAIN[c]}' for s, c in zip(SIDES, tile['sides']))})" if tile else ""
            parts.append(f"placed a tile at {square(*where)}{shows}")
            continue
        m = _DEPLOY.match(text)
        if m:
            seg = board.segment(*where, m[1]) if where else None
            if seg:
                parts.append(f"deployed {'an' if seg['terrain'] == 'grassland' else 'a'} {ROLE[seg['terrain']]} "
                             f"on its {segment_word(seg['terrain'], seg['name'])}")
            else:
                parts.append(f"deployed a follower on {m[1]}")
            continue
        m = _REMOVE.match(text)
        if m:
            seg = board.segment(int(m[1]), int(m[2]), m[3])
            role = ROLE[seg["terrain"]] if seg else "follower"
            scored = ""
            if is_last_run and i == len(notations) - 1 and last and last.get("move") == text \
                    and last.get("points") is not None:
                scored = f" and scored {plural(last['points'], 'point')}"
            parts.append(f"took back the {role} at {m[1]},{m[2]} {m[3]}{scored}")
            continue
        parts.append("passed" if text == "pass" else f"played {text}")
    return "; ".join(parts) + "."


# --- the decision now -----------------------------------------------------------------------


def decision(view: dict) -> str:
    if view.get("phase") == "place":
        return "place one of the tiles held" if view["options"].get("double") else "place the drawn tile"
    placed = view.get("placed") or {}
    at = f" at {square(placed['x'], placed['y'])}" if placed else ""
    if not any(f["seat"] == view["to_move"] for f in view["followers"]):
        return f"deploy a follower on the tile just placed{at}, or pass"
    return f"deploy a follower on the tile just placed{at}, take one back, or pass"


def place_lines(view: dict, board: Board, reader: Reader, budget: int) -> list[str]:
    """Where the tile (or each held tile) fits, square by square, with what each side touches."""
    fits: dict[tuple, list[str]] = {}
    for text in reader.legal:
        m = _PLACE.match(text)
        if m:
            fits.setdefault((m[1], int(m[2]), int(m[3])), []).append(m[4])
    lines = []
    tiles = sorted({number for number, _, _ in fits}, key=lambda n: int(n) if n else 0)
    for number in tiles:
        mine = [(x, y, fits[(n, x, y)]) for n, x, y in fits if n == number]
        label = f"Tile #{number}" if number else "The tile"
        lines += wrap(f"{label} fits on {plural(len(mine), 'square')} (turns in degrees clockwise):")
        blocks = []
        # Squares next to followers first: there a tile adds to somebody's score.
        mine.sort(key=lambda s: (not any(board.holders(seg["region"], reader) for seg in (
            board.facing(s[0], s[1], side) for side in SIDES) if seg), s[0], s[1]))
        for x, y, rotations in mine:
            open_sides = next((o["sides"] for o in view["open_squares"] if (o["x"], o["y"]) == (x, y)), "....")
            touches = []
            for side, letter in zip(SIDES, open_sides):
                if letter == ".":
                    continue
                seg = board.facing(x, y, side)
                touches.append(f"{side} joins a {board.region_words(seg, reader) if seg else TERRAIN[letter]}")
            blocks.append(wrap(f"{square(x, y)}, turn {join(rotations, 'or')}: {'; '.join(touches)}", Mark.BULLET))
        room = (budget - len(lines)) // (len(tiles) - tiles.index(number))
        for count in range(len(blocks), -1, -1):
            rest = [square(x, y) for x, y, _ in mine[count:]]
            also = wrap(f"also {some(rest, LISTED * 3)}", Mark.BULLET) if rest else []
            shown = [line for block in blocks[:count] for line in block]
            if len(shown) + len(also) <= room:
                break
        lines += shown + also
    return lines


def follow_lines(view: dict, board: Board, reader: Reader) -> list[str]:
    """The segments of the tile just placed, and the reader's followers that may be taken back."""
    deploy = [m[1] for m in map(_DEPLOY.match, reader.legal) if m]
    remove = [(int(m[1]), int(m[2]), m[3]) for m in map(_REMOVE.match, reader.legal) if m]
    said = []
    if deploy:
        said.append(f"deploy a follower on {join(deploy, 'or')}")
    if remove:
        said.append("take back a follower (its region scores now)")
    if "pass" in reader.legal:
        said.append("pass")
    lines = wrap("You may " + join(said, "or") + ".") if said else []
    placed = view.get("placed")
    tile = board.tiles.get((placed["x"], placed["y"])) if placed else None
    if tile:
        lines += wrap(f"The tile just placed at {square(tile['x'], tile['y'])}:")
        for seg in tile["segments"]:
            role = ROLE[seg["terrain"]]
            free = f"; a{'n' if role == 'explorer' else ''} {role} may go there" if seg["name"] in deploy else ""
            name = f"{seg['name']} (the {segment_word(seg['terrain'], seg['name'])})" \
                if seg["name"] == seg["terrain"] else seg["name"]
            lines += wrap(f"{name} is a {board.region_words(seg, reader)}{free}", Mark.BULLET)
    if remove:
        mine = [f for f in view["followers"] if (f["x"], f["y"], f["segment"]) in remove]
        lines += wrap("Your followers you may take back: " + "; ".join(follower_words(f) for f in mine) + ".")
    return lines


def followers_lines(view: dict, reader: Reader) -> list[str]:
    """Every player's followers on the board, with their regions and what each is worth now."""
    lines = ["Followers on the board:"]
    for p in reader.players():
        mine = [follower_words(f) for f in view["followers"] if f["seat"] == p]
        me = ", you" if p == reader.seat else ""
        lines += wrap(f"{reader.who(p)}{me}: {'; '.join(mine) if mine else 'none'}", Mark.BULLET)
    return lines


# --- the whole text -----------------------------------------------------------------------


def parts(view: dict, reader: Reader) -> Parts:
    """Head, standing, changes, and the board part as a function of its line budget."""
    board = Board(view)
    over = view.get("phase") == "over" or view.get("to_move") is None
    result = view.get("result") or {}
    title = f"Carcassonne: The Discovery, {plural(view['tiles_left'], 'tile')} left in the pile."
    if over:
        head = wrap(f"{title} The game is over. {result.get('reason', 'The last tile has been placed.')}")
    else:
        head = wrap(f"{title} {headline(reader, view['to_move'], decision(view))}")
    details = {}
    final = (result.get("details") or {}).get("final_scoring")
    for p in reader.players():
        text = f"{view['supply'][p]} of {FOLLOWERS} followers in supply"
        if view.get("hand_sizes") and not over:
            text += f", holds {plural(view['hand_sizes'][p], 'tile')}"
        if over and final:
            text += f", {final[p]} of them from the final scoring"
        details[p] = text
    lines = standing(reader, view["scores"], details, over=over, ranks=result.get("ranks"))
    if view.get("removed"):
        why = {"unplaceable": "fit nowhere", "equal turns": "set aside for equal turns"}
        reasons: dict[str, list[str]] = {}
        for r in view["removed"]:
            reasons.setdefault(why.get(r["reason"], r["reason"]), []).append(f"#{r['tile']}")
        lines += wrap("Out of the game: " + "; ".join(f"{join(numbers)} ({reason})"
                                                      for reason, numbers in reasons.items()) + ".")
    moves = recent_moves(reader, view.get("last_move"))

    def told(room: int) -> list[str]:
        return changes(reader, moves, _teller(board, view.get("last_move"), moves), room)

    def board_part(budget: int) -> list[str]:
        out = []
        if not over:
            if view.get("hand"):
                numbers = join([f"#{t['tile']}" for t in view["hand"]])
                out += wrap(f"You hold {numbers}: " + "; ".join(f"#{t['tile']} has {tile_words(t)}"
                                                                for t in view["hand"]) + ".")
            elif view.get("drawn") and view.get("phase") == "place":
                out += wrap(f"The drawn tile #{view['drawn']['tile']} has {tile_words(view['drawn'])}.")
        if reader.legal and view.get("phase") == "place":
            followers = followers_lines(view, reader)
            out += place_lines(view, board, reader, budget - len(out) - len(followers))
            return out + followers if len(out) + len(followers) <= budget else out
        if reader.legal:
            out += follow_lines(view, board, reader)
        followers = followers_lines(view, reader)
        if len(out) + len(followers) <= budget:
            out += followers
        return out

    return Parts(head, lines, told, board_part)


def _teller(board: Board, last: dict | None, moves: list[dict]):
    """tell() for base.changes: only the newest run ends with the view's last move, whose points are known."""
    count = len(runs(moves))
    told = []

    def teller(seat, notations):
        told.append(seat)  # base.changes tells the runs oldest first
        return tell(notations, board, last, len(told) == count)

    return teller
