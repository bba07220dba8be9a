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

from renderers.i18n import N_, Texts
from renderers.text.base import (
    LISTED, Mark, Parts, Reader, changes, did, headline, join, recent_moves, runs, some, standing, tell_steps,
    wrap,
)

TERRAIN = {"G": "grassland", "M": "mountain", "S": "sea"}
ROLE = {"grassland": "explorer", "mountain": "brigand", "sea": "navigator"}
OPPOSITE = {"N": "S", "E": "W", "S": "N", "W": "E"}
FOLLOWERS = 4  # D1: five followers, one of them the score marker
TITLE = "Carcassonne: The Discovery"  # a name: the same in every language
# The words of the game, as the text names them (the notation, such as `deploy E+W`, stays as it is).
TERRAIN_WORDS = {"grassland": N_("grassland"), "mountain": N_("mountain"), "sea": N_("sea")}
ROLE_WORDS = {"explorer": N_("explorer"), "brigand": N_("brigand"), "navigator": N_("navigator")}
ROLES_WORDS = {"explorer": N_("explorers"), "brigand": N_("brigands"), "navigator": N_("navigators")}

_PLACE = re.compile(r"^place (?:#(\d+) )?(-?\d+),(-?\d+) (\d+)$")
_DEPLOY = re.compile(r"^deploy (.+)$")
_REMOVE = re.compile(r"^remove (-?\d+),(-?\d+) (.+)$")


def square(x, y) -> str:
    return f"{x},{y}"


def terrain_word(t: Texts, terrain: str) -> str:
    return t.gettext(TERRAIN_WORDS[terrain]) if terrain in TERRAIN_WORDS else terrain


def role_word(t: Texts, role: str) -> str:
    return t.gettext(ROLE_WORDS[role]) if role in ROLE_WORDS else role


def segment_word(t: Texts, terrain: str, name: str) -> str:
    """'mountain E+W', or 'lake' / 'island' for a segment that touches no side."""
    if name == terrain:
        if terrain == "sea":
            return t.gettext("lake")
        if terrain == "grassland":
            return t.gettext("island")
        return t.gettext("inner %(terrain)s", terrain=terrain_word(t, terrain))
    return f"{terrain_word(t, terrain)} {name}"


def tile_words(t: Texts, tile: dict) -> str:
    """A tile type in words: its segments (named by the sides they touch) and its port cities."""
    terrain_of = {seg["name"]: seg["terrain"] for seg in tile["segments"]}
    text = ", ".join(segment_word(t, seg["terrain"], seg["name"]) for seg in tile["segments"])
    cities = [t.gettext("%(land)s by %(sea)s", land=segment_word(t, terrain_of[c["land"]], c["land"]),
                        sea=segment_word(t, "sea", c["sea"])) for c in tile["cities"]]
    if cities:
        text += "; " + t.ngettext("a port city on %(cities)s", "port cities on %(cities)s", len(cities),
                                  cities=join(t, cities))
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

    def held(self, region: int) -> bool:
        """Whether a follower is in a region."""
        return any(f["region"] == region for f in self.followers)

    def holders(self, region: int, reader: Reader) -> str:
        """Whose followers are in a region: "with Bea's brigand", 'with your and Cid's navigators', or ''."""
        t = reader.texts
        found = [f for f in self.followers if f["region"] == region]
        if not found:
            return ""
        role = found[0]["role"]
        if len(found) == 1:
            seat = found[0]["seat"]
            if seat == reader.seat:
                return t.gettext("with your %(role)s", role=role_word(t, role))
            return t.gettext("with %(name)s's %(role)s", name=reader.name(seat), role=role_word(t, role))
        owners = [t.gettext("your") if f["seat"] == reader.seat
                  else t.gettext("%(name)s's", name=reader.name(f["seat"])) for f in found]
        roles = t.gettext(ROLES_WORDS[role]) if role in ROLES_WORDS else role + "s"
        return t.gettext("with %(owners)s %(roles)s", owners=join(t, owners), roles=roles)

    def region_words(self, seg: dict, reader: Reader) -> str:
        """'mountain of 3 tiles, complete, with Bea's brigand'."""
        t = reader.texts
        size = len(self.region_tiles.get(seg["region"], ()))
        terrain = terrain_word(t, seg["terrain"])
        text = (t.ngettext("%(terrain)s of %(num)d tile, complete", "%(terrain)s of %(num)d tiles, complete", size,
                           terrain=terrain) if seg["complete"]
                else t.ngettext("%(terrain)s of %(num)d tile", "%(terrain)s of %(num)d tiles", size, terrain=terrain))
        held = self.holders(seg["region"], reader)
        return f"{text}, {held}" if held else text


def follower_words(t: Texts, f: dict) -> str:
    """'brigand at 0,0 E+W (4 tiles, complete, 2 port cities): worth 4'."""
    facts = [t.ngettext("%(num)d tile", "%(num)d tiles", f["region_tiles"])]
    if f["region_complete"]:
        facts.append(t.gettext("complete"))
    if f["terrain"] != "grassland":
        facts.append(t.ngettext("%(num)d port city", "%(num)d port cities", f["region_cities"]))
    return t.gettext("%(role)s at %(square)s %(segment)s (%(facts)s): worth %(value)s", role=role_word(t, f["role"]),
                     square=square(f["x"], f["y"]), segment=f["segment"], facts=", ".join(facts), value=f["value"])


# --- moves in words -----------------------------------------------------------------------


DEPLOYED = {"explorer": N_("deployed an explorer on its %(segment)s"),
            "brigand": N_("deployed a brigand on its %(segment)s"),
            "navigator": N_("deployed a navigator on its %(segment)s")}
TAKEN_BACK = {"explorer": N_("took back the explorer at %(square)s %(segment)s"),
              "brigand": N_("took back the brigand at %(square)s %(segment)s"),
              "navigator": N_("took back the navigator at %(square)s %(segment)s"),
              "follower": N_("took back the follower at %(square)s %(segment)s")}


def _taken_back_scoring(t: Texts, role: str, points: int, **values) -> str:
    if role == "explorer":
        return t.ngettext("took back the explorer at %(square)s %(segment)s and scored %(num)d point",
                          "took back the explorer at %(square)s %(segment)s and scored %(num)d points", points,
                          **values)
    if role == "brigand":
        return t.ngettext("took back the brigand at %(square)s %(segment)s and scored %(num)d point",
                          "took back the brigand at %(square)s %(segment)s and scored %(num)d points", points, **values)
    if role == "navigator":
        return t.ngettext("took back the navigator at %(square)s %(segment)s and scored %(num)d point",
                          "took back the navigator at %(square)s %(segment)s and scored %(num)d points", points,
                          **values)
    return t.ngettext("took back the follower at %(square)s %(segment)s and scored %(num)d point",
                      "took back the follower at %(square)s %(segment)s and scored %(num)d points", points, **values)


def tell(t: Texts, notations: list[str], board: Board, last: dict | None, is_last_run: bool) -> str:
    """What a player's turn(s) did: where the tile went and what the follower did."""
    parts = []
    where = None
    for i, text in enumerate(notations):
        m = _PLACE.match(text)
        if m:
            where = (int(m[2]), int(m[3]))
            tile = board.tiles.get(where)
            if tile:
                shows = ", ".join(f"{s} {terrain_word(t, TERRAIN[c])}" for s, c in zip(SIDES, tile["sides"]))
                parts.append(t.gettext("placed a tile at %(square)s (%(sides)s)", square=square(*where), sides=shows))
            else:
                parts.append(t.gettext("placed a tile at %(square)s", square=square(*where)))
            continue
        m = _DEPLOY.match(text)
        if m:
            seg = board.segment(*where, m[1]) if where else None
            if seg:
                parts.append(t.gettext(DEPLOYED[ROLE[seg["terrain"]]],
                                       segment=segment_word(t, seg["terrain"], seg["name"])))
            else:
                parts.append(t.gettext("deployed a follower on %(segment)s", segment=m[1]))
            continue
        m = _REMOVE.match(text)
        if m:
            seg = board.segment(int(m[1]), int(m[2]), m[3])
            role = ROLE[seg["terrain"]] if seg else "follower"
            values = {"square": f"{m[1]},{m[2]}", "segment": m[3]}
            if is_last_run and i == len(notations) - 1 and last and last.get("move") == text \
                    and last.get("points") is not None:
                parts.append(_taken_back_scoring(t, role, last["points"], **values))
            else:
                parts.append(t.gettext(TAKEN_BACK[role], **values))
            continue
        parts.append(t.gettext("passed") if text == "pass" else t.gettext("played %(move)s", move=text))
    return "; ".join(parts)


# --- the decision now -----------------------------------------------------------------------


def decision(t: Texts, view: dict) -> str:
    if view.get("phase") == "place":
        return t.gettext("place one of the tiles held") if view["options"].get("double") \
            else t.gettext("place the drawn tile")
    placed = view.get("placed") or {}
    at = square(placed["x"], placed["y"]) if placed else None
    if not any(f["seat"] == view["to_move"] for f in view["followers"]):
        if at:
            return t.gettext("deploy a follower on the tile just placed at %(square)s, or pass", square=at)
        return t.gettext("deploy a follower on the tile just placed, or pass")
    if at:
        return t.gettext("deploy a follower on the tile just placed at %(square)s, take one back, or pass", square=at)
    return t.gettext("deploy a follower on the tile just placed, take one back, or pass")


def place_lines(view: dict, board: Board, reader: Reader, budget: int) -> list[str]:
    """Where the tile (or each held tile) fits, square by square, with what each side touches."""
    t = reader.texts
    fits: dict[tuple, list[str]] = {}
    for text in reader.legal:
        m = _PLACE.match(text)
        if m:
            fits.setdefault((m[1], int(m[2]), int(m[3])), []).append(m[4])
    lines = []
    tiles = sorted({number for number, _, _ in fits}, key=lambda n: int(n) if n else 0)
    for number in tiles:
        mine = [(x, y, fits[(n, x, y)]) for n, x, y in fits if n == number]
        if number:
            heading = t.ngettext("Tile #%(tile)s fits on %(num)d square (turns in degrees clockwise):",
                                 "Tile #%(tile)s fits on %(num)d squares (turns in degrees clockwise):", len(mine),
                                 tile=number)
        else:
            heading = t.ngettext("The tile fits on %(num)d square (turns in degrees clockwise):",
                                 "The tile fits on %(num)d squares (turns in degrees clockwise):", len(mine))
        lines += wrap(heading)
        blocks = []
        # Squares next to followers first: there a tile adds to somebody's score.
        mine.sort(key=lambda s: (not any(board.held(seg["region"]) for seg in (
            board.facing(s[0], s[1], side) for side in SIDES) if seg), s[0], s[1]))
        for x, y, rotations in mine:
            open_sides = next((o["sides"] for o in view["open_squares"] if (o["x"], o["y"]) == (x, y)), "....")
            touches = []
            for side, letter in zip(SIDES, open_sides):
                if letter == ".":
                    continue
                seg = board.facing(x, y, side)
                touches.append(t.gettext("%(side)s joins a %(region)s", side=side, region=board.region_words(
                    seg, reader) if seg else terrain_word(t, TERRAIN[letter])))
            blocks.append(wrap(t.gettext("%(square)s, turn %(turns)s: %(touches)s", square=square(x, y),
                                         turns=join(t, rotations, "or"), touches="; ".join(touches)), Mark.BULLET))
        room = (budget - len(lines)) // (len(tiles) - tiles.index(number))
        for limit in (LISTED * 3, LISTED):  # short of room, fewer squares are named and the rest counted
            for count in range(len(blocks), -1, -1):
                rest = [square(x, y) for x, y, _ in mine[count:]]
                also = wrap(t.gettext("also %(squares)s", squares=some(t, rest, limit)), Mark.BULLET) if rest else []
                shown = [line for block in blocks[:count] for line in block]
                if len(shown) + len(also) <= room:
                    break
            if len(shown) + len(also) <= room:
                break
        lines += shown + also
    return lines


MAY_GO = {"explorer": N_("%(name)s is a %(region)s; an explorer may go there"),
          "brigand": N_("%(name)s is a %(region)s; a brigand may go there"),
          "navigator": N_("%(name)s is a %(region)s; a navigator may go there")}
INNER = {"sea": N_("%(name)s (the lake)"), "grassland": N_("%(name)s (the island)"),
         "mountain": N_("%(name)s (the inner mountain)")}


def follow_lines(view: dict, board: Board, reader: Reader) -> list[str]:
    """The segments of the tile just placed, and the reader's followers that may be taken back."""
    t = reader.texts
    deploy = [m[1] for m in map(_DEPLOY.match, reader.legal) if m]
    remove = [(int(m[1]), int(m[2]), m[3]) for m in map(_REMOVE.match, reader.legal) if m]
    said = []
    if deploy:
        said.append(t.gettext("deploy a follower on %(segments)s", segments=join(t, deploy, "or")))
    if remove:
        said.append(t.gettext("take back a follower (its region scores now)"))
    if "pass" in reader.legal:
        said.append(t.gettext("pass"))
    lines = wrap(t.gettext("You may %(choices)s.", choices=join(t, said, "or"))) if said else []
    placed = view.get("placed")
    tile = board.tiles.get((placed["x"], placed["y"])) if placed else None
    if tile:
        lines += wrap(t.gettext("The tile just placed at %(square)s:", square=square(tile["x"], tile["y"])))
        for seg in tile["segments"]:
            role = ROLE[seg["terrain"]]
            name = t.gettext(INNER[seg["terrain"]], name=seg["name"]) if seg["name"] == seg["terrain"] else seg["name"]
            region = board.region_words(seg, reader)
            text = t.gettext(MAY_GO[role], name=name, region=region) if seg["name"] in deploy \
                else t.gettext("%(name)s is a %(region)s", name=name, region=region)
            lines += wrap(text, Mark.BULLET)
    if remove:
        mine = [f for f in view["followers"] if (f["x"], f["y"], f["segment"]) in remove]
        lines += wrap(t.gettext("Your followers you may take back: %(followers)s.",
                                followers="; ".join(follower_words(t, f) for f in mine)))
    return lines


def short_follower_words(t: Texts, f: dict) -> str:
    """'brigand at 0,0 E+W: worth 4', for when the whole board must fit in few lines."""
    return t.gettext("%(role)s at %(square)s %(segment)s: worth %(value)s", role=role_word(t, f["role"]),
                     square=square(f["x"], f["y"]), segment=f["segment"], value=f["value"])


def followers_lines(view: dict, reader: Reader, short: bool = False) -> list[str]:
    """Every player's followers on the board, with their regions (unless `short`) and what each is worth now."""
    t = reader.texts
    words = short_follower_words if short else follower_words
    lines = [t.gettext("Followers on the board:")]
    for p in reader.players():
        mine = [words(t, f) for f in view["followers"] if f["seat"] == p]
        values = {"who": reader.who(p), "followers": "; ".join(mine)}
        if p == reader.seat:
            text = t.gettext("%(who)s, you: %(followers)s", **values) if mine else t.gettext("%(who)s, you: none",
                                                                                            **values)
        else:
            text = t.gettext("%(who)s: %(followers)s", **values) if mine else t.gettext("%(who)s: none", **values)
        lines += wrap(text, Mark.BULLET)
    return lines


# --- the whole text -----------------------------------------------------------------------


REMOVED = {"unplaceable": N_("fit nowhere"), "equal turns": N_("set aside for equal turns")}


def parts(view: dict, reader: Reader) -> Parts:
    """Head, standing, changes, and the board part as a function of its line budget."""
    t = reader.texts
    board = Board(view)
    over = view.get("phase") == "over" or view.get("to_move") is None
    result = view.get("result") or {}
    title = t.ngettext("%(title)s, %(num)d tile left in the pile.", "%(title)s, %(num)d tiles left in the pile.",
                       view["tiles_left"], title=TITLE)
    if over:
        reason = result["reason"] if "reason" in result else t.gettext("The last tile has been placed.")
        head = wrap(f"{title} {t.gettext('The game is over.')} {reason}")
    else:
        head = wrap(f"{title} {headline(reader, view['to_move'], decision(t, view))}")
    details = {}
    final = (result.get("details") or {}).get("final_scoring")
    for p in reader.players():
        text = t.gettext("%(supply)s of %(followers)s followers in supply", supply=view["supply"][p],
                         followers=FOLLOWERS)
        if view.get("hand_sizes") and not over:
            text += ", " + t.ngettext("holds %(num)d tile", "holds %(num)d tiles", view["hand_sizes"][p])
        if over and final:
            text += ", " + t.gettext("%(points)s of them from the final scoring", points=final[p])
        details[p] = text
    lines = standing(reader, view["scores"], details, over=over, ranks=result.get("ranks"))
    if view.get("removed"):
        reasons: dict[str, list[str]] = {}
        for r in view["removed"]:
            why = t.gettext(REMOVED[r["reason"]]) if r["reason"] in REMOVED else r["reason"]
            reasons.setdefault(why, []).append(f"#{r['tile']}")
        lines += wrap(t.gettext("Out of the game: %(tiles)s.", tiles="; ".join(
            f"{join(t, numbers)} ({reason})" for reason, numbers in reasons.items())))
    moves = recent_moves(reader, view.get("last_move"))

    def told(room: int) -> list[str]:
        return changes(reader, moves, _teller(t, board, view.get("last_move"), moves), room)

    held = []
    if not over:
        if view.get("hand"):
            each = [t.gettext("#%(tile)s has %(segments)s", tile=x["tile"], segments=tile_words(t, x))
                    for x in view["hand"]]
            numbers = join(t, [f"#{x['tile']}" for x in view["hand"]])
            held += wrap(t.gettext("You hold %(tiles)s: %(each)s.", tiles=numbers, each="; ".join(each)))
        elif view.get("drawn") and view.get("phase") == "place":
            held += wrap(t.gettext("The drawn tile #%(tile)s has %(segments)s.", tile=view["drawn"]["tile"],
                                   segments=tile_words(t, view["drawn"])))
    placing = bool(reader.legal) and view.get("phase") == "place"
    following = follow_lines(view, board, reader) if reader.legal and not placing else []
    # Every follower is always told (issue 33 item 7): with its region when there is room, else in short.
    short = followers_lines(view, reader, short=True)
    least = len(held) + len(following) + len(short) + (len(place_lines(view, board, reader, 0)) if placing else 0)

    def board_part(budget: int) -> list[str]:
        out = held + following
        if not placing:
            followers = followers_lines(view, reader)
            return out + (followers if len(out) + len(followers) <= budget else short)
        for followers in (followers_lines(view, reader), short):
            place = place_lines(view, board, reader, budget - len(out) - len(followers))
            if len(out) + len(place) + len(followers) <= budget:
                return out + place + followers
        return out + place_lines(view, board, reader, 0) + short

    return Parts(head, lines, told, board_part, least)


def _teller(t: Texts, board: Board, last: dict | None, moves: list[dict]):
    """tell() for base.changes: only the newest run ends with the view's last move, whose points are known."""
    count = len(runs(moves))
    told = []

    def teller(seat, notations):
        told.append(seat)  # base.changes tells the runs oldest first
        return tell(t, notations, board, last, len(told) == count)

    return teller


# --- Carcassonne: The Discovery: tiles drawn (hidden in a hand but the reader's), tiles that fit nowhere -----


def tell_since(move: dict, reader: Reader) -> tuple[list[str], str]:
    t = reader.texts
    return tell_steps(move, reader,
                      lambda i, seat, notation, before, after: _discovery_move(t, notation, before, after, i == 0),
                      lambda seat, notation, before, after: _discovery_chance(before, after, reader, seat))


def _discovery_move(t: Texts, notation: str, before: dict, after: dict, players: bool) -> str:
    """One Discovery decision in the text board's words; a follower deployed is named by its role and the
    segment of the tile just placed (`before["placed"]`), which the notation alone does not say."""
    board = Board(after)
    placed = before.get("placed")
    if notation.startswith("deploy ") and placed:
        seg = board.segment(placed["x"], placed["y"], notation.split(" ", 1)[1])
        role = ROLE.get(seg["terrain"]) if seg else None
        if role in DEPLOYED:
            return t.gettext(DEPLOYED[role],
                             segment=segment_word(t, seg["terrain"], seg["name"]))
    return tell(t, [notation], board, after.get("last_move"), players)


def _discovery_chance(before: dict, after: dict, reader: Reader, mover: int | None) -> list[str]:
    """The tiles drawn between two views: those that fit nowhere, the one drawn face up, those drawn into a hand."""
    t = reader.texts
    said = []
    gone = (after.get("removed") or [])[len(before.get("removed") or []):]
    for r in gone:
        if r.get("reason") == "unplaceable":
            said.append(t.gettext("Tile #%(tile)s was drawn and fits nowhere: it is out of the game.", tile=r["tile"]))
    drawn = before.get("tiles_left", 0) - after.get("tiles_left", 0) - len(gone)
    if drawn <= 0:
        return said
    if after.get("drawn") and after.get("to_move") is not None:  # the base game: the drawn tile lies face up
        tile = after["drawn"]
        said.append(did(reader, after["to_move"], t.gettext(
            "drew tile #%(tile)s: %(segments)s", tile=tile["tile"],
            segments=tile_words(t, tile))))
        return said
    old = [x["tile"] for x in before.get("hand") or []]
    new = []
    for x in after.get("hand") or []:  # the reader's own hand: what came into it
        if x["tile"] in old:
            old.remove(x["tile"])
        else:
            new.append(x)
    for x in new:
        said.append(did(reader, reader.seat, t.gettext("drew tile #%(tile)s: %(segments)s", tile=x["tile"],
                                                         segments=tile_words(t, x))))
    sizes_before, sizes_after = before.get("hand_sizes") or [], after.get("hand_sizes") or []
    for p in range(min(len(sizes_before), len(sizes_after))):
        if p != reader.seat and sizes_after[p] > sizes_before[p]:
            said.append(did(reader, p, t.ngettext("drew %(num)d tile into the hidden hand",
                                                    "drew %(num)d tiles into the hidden hand",
                                                    sizes_after[p] - sizes_before[p])))
    return said
