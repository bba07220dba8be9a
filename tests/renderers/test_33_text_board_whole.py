"""Issue 33 item 7: the text board is the whole board.

A Tongiaki mail listed Tonga and Hiva Oa only, while two more islands had ships. For random
positions of every title, player count and option preset (seeded random games of the real
engines), each reader's text board (renderers.text.board_text, what a mail shows with images
off) is compared with that reader's view, the only source of truth: every fact a player needs
to decide is taken from the view and must be in the text, by the name the text uses for it and
with its count. A test fails naming each missing or wrong fact.

- Tongiaki: every island on the table by name; per beach with ships, the ships by colour and
  count; each king island and its king; the water tiles on the table; a fleet at sea; the
  islands that left the game; the tiles left in the pile; each player's score and supply.
- Discovery: every follower (explorer, brigand, navigator) with its owner, square, segment
  and worth; each player's score and followers in supply; the tiles left; the drawn tile or
  the reader's own hand; the tiles out of the game.
- Tapaono: every field with a marker and who holds it (and no other); every star that counts,
  who surrounds it or who holds the fields around it; each player's score, stock, pieces and
  depot; the cards in use and the used cards.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

import engine
from engine.core import derive_seed
from renderers.text import board_text
from tests.renderers.test_text_board import NAMES, check_plain, mentioned, statements

POSITIONS = 40        # positions read per configuration in the everyday suite
FULL_GAMES = 4        # games per configuration in the full sweep
FULL_POSITIONS = 150  # positions read per game in the full sweep
RECENT = 12           # at most this many moves since the reader's last turn are passed, as the service does


def configurations():
    for title in sorted(engine.names()):
        rules = engine.get(title)
        if engine.entry(title).text_board is None:
            continue
        for players in range(rules.min_players, rules.max_players + 1):
            for n, options in enumerate(rules.option_presets()):
                yield pytest.param(title, players, options, id=f"{title}-{players}p-{n}")


CONFIGS = list(configurations())


def play(title, players, options, seed):
    """Every position of one seeded random game as (state, notation of the move that led to it, mover)."""
    rules = engine.get(title)
    state = rules.setup(players, rules.check_options(options), seed)
    chooser = random.Random(seed)
    out = [(state, "", None)]
    for _ in range(rules.max_decisions):
        seat = rules.to_move(state)
        if seat is None:
            break
        move = chooser.choice(rules.legal_moves(state))
        text = rules.notation(state, move)
        state = rules.apply(state, move)
        out.append((state, text, seat))
    return out


def recent(positions, i, seat):
    """The moves since `seat`'s last turn (a spectator: the last few), as {"seat", "notation"} dicts."""
    moves = []
    for k in range(i, 0, -1):
        _, text, mover = positions[k]
        if len(moves) == RECENT or (seat is not None and mover == seat and any(m["seat"] != seat for m in moves)):
            break
        moves.insert(0, {"seq": k, "seat": mover, "player": NAMES[mover], "notation": text})
    return moves


def read(title, positions, i, seat, players):
    """The reader's view and text board at position i."""
    rules = engine.get(title)
    state = positions[i][0]
    view = rules.view(state, seat)
    legal = [rules.notation(state, m) for m in rules.legal_moves(state)] \
        if seat is not None and rules.to_move(state) == seat else []
    lines = board_text(title, view, names=NAMES[:players], seat=seat, legal_moves=legal,
                       recent=recent(positions, i, seat))
    return view, lines


def blocks(lines):
    """The text's parts as they are separated by blank lines."""
    out = [[]]
    for line in lines:
        if line:
            out[-1].append(line)
        else:
            out.append([])
    return [block for block in out if block]


def row(lines, view, p):
    """Player p's line of the standing (its statement)."""
    start = f"- {NAMES[p]} ({view['colours'][p]})"
    found = [s for s in statements(lines) if s.startswith(start + ":") or s.startswith(start + ", you:")]
    return found[0] if found else ""  # the standing comes before any list of the board


def flat(lines):
    return " ".join(" ".join(lines).split())


# --- the facts of a view and where the text says them, per title ------------------------------------------


def merged(lines):
    """The lines as statements: each bullet with its indented rest, each paragraph whole (a paragraph may wrap
    after any word, even after a colon, so only a bullet or the end of one surely starts a statement)."""
    out: list[str] = []
    for line in lines:
        if not line:
            out.append("")
        elif not out or not out[-1] or line.startswith("- ") or (out[-1].startswith("- ")
                                                                  and not line.startswith(" ")):
            out.append(line)
        else:
            out[-1] += " " + line.strip()
    return out


def tongiaki_board(view, board_block):
    """What the board part says of each beach: {(island, beach): Counter(colour: ships)}, and the islands named
    at the start of a statement (or sentence), with what follows their name there."""
    islands = [t["tile"] for t in view["tiles"] if t["kind"] == "island"]
    colours = "|".join(map(re.escape, sorted(set(view["colours"]), key=len, reverse=True)))
    names = "|".join(map(re.escape, sorted(islands, key=len, reverse=True)))
    token = re.compile(rf"(?:^(?:- )?|(?<=[.:] ))(?P<island>{names}) \(|\bbeach (?P<beach>\d+)\b"
                       rf"|\bbeaches (?P<beaches>\d+(?:(?:, | and )\d+)*)|\b(?P<count>\d+) (?P<colour>{colours})\b")
    said: dict[tuple[str, int], Counter] = {}
    told: dict[str, str] = {}
    island, beaches = None, []
    for statement in merged(board_block):
        for m in token.finditer(statement):
            if m["island"]:
                island, beaches = m["island"], []
                told[island] = told.get(island, "") + " " + statement[m.end():]
            elif m["beach"]:
                beaches = [int(m["beach"])]
            elif m["beaches"]:
                beaches = [int(b) for b in re.findall(r"\d+", m["beaches"])]
            elif island is not None:
                for b in beaches:
                    said.setdefault((island, b), Counter())[m["colour"]] = int(m["count"])
    return said, told


def tongiaki_facts(view, lines):
    missing = []
    parts = blocks(lines)
    board_block = parts[-2] if len(parts) >= 2 else []
    text = flat(lines)
    said, told = tongiaki_board(view, board_block)
    for tile in view["tiles"]:
        if tile["kind"] != "island":
            continue
        name = tile["tile"]
        if not mentioned(flat(board_block), name):
            missing.append(f"island {name} is not named in the board part")
            continue
        if tile.get("king"):
            king = view["colours"].index(tile["king"])
            if "king island of " + NAMES[king] not in told.get(name, ""):
                missing.append(f"{name}: king island of {NAMES[king]} ({tile['king']})")
            continue
        for beach in tile["beaches"]:
            want = Counter(beach["ships"])
            got = said.get((name, beach["beach"]), Counter())
            if want != got:
                shown = ", ".join(f"{n} {c}" for c, n in want.items()) or "no ship"
                wrong = ", ".join(f"{n} {c}" for c, n in got.items()) or "nothing"
                missing.append(f"{name} beach {beach['beach']}: {shown} (the text says {wrong})")
    water = [t["tile"] for t in view["tiles"] if t["kind"] == "water"]
    listed = re.search(r"Water tiles on the table: ([A-Z ]*)", flat(board_block))
    for tile in water:
        if not listed or tile not in listed[1].split():
            missing.append(f"water tile {tile} on the table")
    if view.get("at_sea"):
        sea = view["at_sea"]
        ships = ", ".join(f"{n} {c}" for c, n in Counter(sea["ships"]).items())
        if f"At sea on water tile {sea['tile']}: {ships}" not in text:
            missing.append(f"at sea on {sea['tile']}: {ships}")
    for name in view.get("removed") or ():
        if not re.search(rf"Left the game after an endless chain: [^.]*\b{name}\b", text):
            missing.append(f"{name} left the game")
    if view.get("pending") is not None:
        pile = view["pile"]
        islands = f"{pile['islands']} island" + ("s" if pile["islands"] != 1 else "")
        waters = f"{pile['water']} water tile" + ("s" if pile["water"] != 1 else "")
        if f"The pile holds {islands} and {waters}" not in text:
            missing.append(f"tiles left: {islands} and {waters}")
    for seat in view["seats"]:
        p = seat["seat"]
        line = row(lines, view, p)
        points = f"{seat['score']} point" + ("s" if seat["score"] != 1 else "")
        if f": {points}" not in line:
            missing.append(f"{NAMES[p]}'s score: {points}")
        if f"{seat['supply']} of 15 ships in supply" not in line:
            missing.append(f"{NAMES[p]}'s supply: {seat['supply']} of 15 ships")
    return missing


def discovery_facts(view, lines):
    missing = []
    text = flat(lines)
    for f in view["followers"]:
        p = f["seat"]
        where = f"{f['x']},{f['y']} {f['segment']}"
        owner = [s for s in statements(lines)[1:] if s.startswith((f"- {NAMES[p]} ({view['colours'][p]}):",
                                                                   f"- {NAMES[p]} ({view['colours'][p]}), you:"))]
        fragments = [part for s in owner[1:] for part in s.split(":", 1)[1].split(";")]  # owner[0]: the standing
        found = [part for part in fragments if f["role"] in part and mentioned(part, where)]
        if not found:
            missing.append(f"{NAMES[p]}'s {f['role']} at {where}")
        elif not re.search(rf"\bworth {f['value']}\b", found[0]):
            missing.append(f"{NAMES[p]}'s {f['role']} at {where} is worth {f['value']}: {found[0].strip()!r}")
    for p in range(view["players"]):
        line = row(lines, view, p)
        points = f"{view['scores'][p]} point" + ("s" if view["scores"][p] != 1 else "")
        if f": {points}" not in line:
            missing.append(f"{NAMES[p]}'s score: {points}")
        if f"{view['supply'][p]} of 4 followers in supply" not in line:
            missing.append(f"{NAMES[p]}'s supply: {view['supply'][p]} of 4 followers")
    left = view["tiles_left"]
    if f"{left} tile{'s' if left != 1 else ''} left" not in text:
        missing.append(f"{left} tiles left")
    if view["to_move"] is not None and view["phase"] == "place":
        shown = [x["tile"] for x in view["hand"] or ()] or ([view["drawn"]["tile"]] if view.get("drawn") else [])
        for number in shown:
            if not mentioned(text, f"#{number}"):
                missing.append(f"tile #{number} to place")
    for r in view.get("removed") or ():
        if not re.search(rf"Out of the game: [^.]*#{r['tile']}\b", text):
            missing.append(f"tile #{r['tile']} out of the game")
    return missing


def tapaono_fields(view, lines, reader):
    """The fields the text says each player holds: {seat: {(q, r)}}."""
    held: dict[int, set] = {p: set() for p in (0, 1)}
    for s in statements(lines):
        m = re.match(r"^- (You|\w+) holds? (.*)\.$", s)
        if not m:
            continue
        p = reader if m[1] == "You" else NAMES.index(m[1]) if m[1] in NAMES else None
        if p is None:
            continue
        for first, last in re.findall(r"(-?\d+,-?\d+)(?: to (-?\d+,-?\d+))?", m[2]):
            q, r = map(int, first.split(","))
            q2 = int(last.split(",")[0]) if last else q
            held[p] |= {(x, r) for x in range(q, q2 + 1)}
    return held


def tapaono_facts(view, lines, seat):
    missing = []
    text = flat(lines)
    held = tapaono_fields(view, lines, seat)
    for p in (0, 1):
        want = {(q, r) for q, r, owner in view["fields"] if owner == p}
        for q, r in sorted(want - held[p]):
            missing.append(f"{NAMES[p]} holds {q},{r}")
        for q, r in sorted(held[p] - want):
            missing.append(f"{NAMES[p]} does not hold {q},{r} (the text says so)")
    owner = {(q, r): o for q, r, o in view["fields"]}
    around = [(dq, dr) for dq, dr in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))]
    said = [re.sub(r"^(- |Around the stars[^:]*: ?)", "", s) for s in merged(lines)]
    star_text = " ".join(said)
    fragments = [f for s in said for f in re.split(r"; |\. ", s)]
    surrounded: dict[str, list[str]] = {}  # the shortest form: "Stars surrounded: 2,0 and 0,2 by Ann (red); ..."
    for listed in re.findall(r"Stars surrounded: ([^.]*)\.", star_text):
        for group in listed.split("; "):
            m = re.match(r"(.*) by (\w+) \(", group)
            if m:
                surrounded.setdefault(m[2], []).append(m[1])
    nobody = (re.search(r"Stars nobody surrounds yet: ([^.]*)\.", star_text) or ["", ""])[1]
    for star in view["stars"]:
        if not star["counts"]:
            continue
        where = f"{star['q']},{star['r']}"
        mine = [f for f in fragments if f.startswith(where + ":") or f.startswith(f"{where} (")]
        if star["surrounded_by"] is not None:
            who = NAMES[star["surrounded_by"]]
            if not any(f"surrounded by {who}" in f for f in mine) \
                    and not any(mentioned(group, where) for group in surrounded.get(who, ())):
                missing.append(f"star {where} surrounded by {who}")
            continue
        ring = Counter(owner.get((star["q"] + dq, star["r"] + dr), "off") for dq, dr in around)
        ring.pop("off", None)
        if not mine:  # nobody holds a field around it, or the shortest form: among those nobody surrounds yet
            around_none = re.search(r"Nobody around ([^.]*)\.", star_text)
            if not mentioned(nobody, where) and not (not any(ring[p] for p in (0, 1)) and around_none
                                                     and mentioned(around_none[1], where)):
                missing.append(f"the star {where}, which nobody surrounds")
            continue
        for p in (0, 1):
            word = "yours" if p == seat else f"{NAMES[p]}'s"
            if ring[p] and not any(re.search(rf"\b{ring[p]} {re.escape(word)}", f) for f in mine):
                missing.append(f"star {where}: {ring[p]} fields of {NAMES[p]} around it")
    for p in (0, 1):
        line = row(lines, view, p)
        unit = "star" if view["goal"] else "field"
        score = f"{view['scores'][p]} {unit}" + ("s" if view["scores"][p] != 1 else "")
        if f": {score}" not in line:
            missing.append(f"{NAMES[p]}'s score: {score}")
        stock = view["markers_left"][p]
        if f"{stock} marker{'s' if stock != 1 else ''} in stock" not in line:
            missing.append(f"{NAMES[p]}'s stock: {stock} markers")
        for piece in view["pieces"][p]:
            place = "in the spawn" if piece["field"] is None else f"{piece['field'][0]},{piece['field'][1]}"
            if not re.search(rf"\b{piece['piece']} (on |on the star )?{re.escape(place)}", line):
                missing.append(f"{NAMES[p]}'s piece {piece['piece']} {place}")
        depot = Counter(view["depots"][p])
        for card, n in depot.items():
            if line.count(CARD_NAMES[card]) < n:
                missing.append(f"{NAMES[p]}'s depot: {n} {CARD_NAMES[card]}")
    if view["in_use"] and view["to_move"] is not None:
        shown = (re.search(r"Cards in use this round: ([^.]*)\.", text) or ["", ""])[1]
        for card, n in Counter(view["in_use"]).items():
            if shown.count(CARD_NAMES[card]) < n:
                missing.append(f"{n} {CARD_NAMES[card]} in use")
    used = (re.search(r"Used cards: ([^.]*)\.", text) or ["", ""])[1]
    for card, n in Counter(view["discard"] if view["to_move"] is not None else ()).items():
        if not re.search(rf"\b{n} {re.escape(CARD_NAMES[card])}", used):
            missing.append(f"{n} {CARD_NAMES[card]} among the used cards")
    deck = view["deck_size"]
    if f"{deck} card{'s' if deck != 1 else ''} in the deck" not in text:
        missing.append(f"{deck} cards in the deck")
    return missing


CARD_NAMES = {"transport": "Transport +2", "conquer-six": "Conquer six", "conquer-three": "Conquer three",
              "raid": "Raid", "loss": "Loss", "landing": "Landing", "star-jump": "Star jump", "recall": "Recall"}


def facts_missing(title, view, lines, seat):
    if title == "tongiaki":
        return tongiaki_facts(view, lines)
    if title == "discovery":
        return discovery_facts(view, lines)
    return tapaono_facts(view, lines, seat)


# --- the sweep ---------------------------------------------------------------------------------------------


def sweep(title, players, options, seed, count):
    """Read `count` positions of one game (spread over it, the last included), each by the seat to move,
    another seat and a spectator in turn; returns the failures with where they happened."""
    positions = play(title, players, options, seed)
    picks = sorted({round(k * (len(positions) - 1) / max(1, count - 1)) for k in range(count)})
    failures = []
    rules = engine.get(title)
    for n, i in enumerate(picks):
        mover = rules.to_move(positions[i][0])
        readers = [mover if mover is not None else 0, (n % players), None]
        seat = readers[n % 3]
        view, lines = read(title, positions, i, seat, players)
        check_plain(lines, view)
        for fact in facts_missing(title, view, lines, seat):
            failures.append(f"position {i} of seed {seed}, read by {'a spectator' if seat is None else NAMES[seat]}: "
                            f"{fact}\n" + "\n".join(lines))
    return failures


@pytest.mark.parametrize("title,players,options", CONFIGS)
def test_33_7_the_text_board_names_every_fact_of_the_view(title, players, options):
    seed = derive_seed(players, f"33-7-{title}-{sorted(options.items())}") % 100_000
    failures = sweep(title, players, options, seed, POSITIONS)
    assert not failures, f"{len(failures)} facts missing; the first:\n{failures[0]}"


def test_33_7_an_island_that_left_the_game_is_named():
    """A chain that never ends (T16) takes an island off the table: the text says which (rare_paths' seed)."""
    from tests.engine.rare_paths import RARE
    from tests.engine.test_contract import game_seed

    config, index, _ = next(r for r in RARE if r[0] == "tongiaki-3p-default")
    rules = engine.get("tongiaki")
    state = rules.setup(3, {}, game_seed(index))
    chooser = random.Random(index)
    positions = [(state, "", None)]
    while rules.to_move(state) is not None:
        seat = rules.to_move(state)
        move = chooser.choice(rules.legal_moves(state))
        text = rules.notation(state, move)
        state = rules.apply(state, move)
        positions.append((state, text, seat))
    first = next(i for i, (s, _, _) in enumerate(positions) if rules.view(s, None)["removed"])
    for i in (first, len(positions) - 1):
        for seat in (None, 0, 1, 2):
            view, lines = read("tongiaki", positions, i, seat, 3)
            assert view["removed"]
            assert not tongiaki_facts(view, lines), tongiaki_facts(view, lines)


@pytest.mark.full
@pytest.mark.parametrize("title,players,options", CONFIGS)
def test_33_7_the_text_board_names_every_fact_of_the_view_full(title, players, options):
    failures = []
    for game in range(FULL_GAMES):
        seed = derive_seed(game, f"33-7-full-{title}-{players}-{sorted(options.items())}") % 100_000
        failures += sweep(title, players, options, seed, FULL_POSITIONS)
    assert not failures, f"{len(failures)} facts missing; the first:\n{failures[0]}"
