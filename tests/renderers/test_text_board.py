"""The board in text (renderers.text.board_text): readable lines, the standing, the news, the reader's places.

Positions come from seeded random games of the real engines (tests/renderers/games.py):
the start, the middle and the end of one game per title, plus a sweep over every player
count and option preset that renders every seat's and a spectator's text.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

import engine
from engine.core import derive_seed
from renderers.text import TextError, board_text
from tests.renderers.games import GAMES, play

NAMES = ["Ann", "Bea", "Cid", "Dora", "Eve", "Finn"]
WIDTH = 72      # characters a line: what a plain-text mail shows unbroken
MAX_LINES = 40  # a text board longer than this is not read
TITLES = sorted(GAMES)
STAGES = {"start": 0.0, "mid": 0.5, "end": 1.0}
SPECTATOR_MOVES = 8  # a spectator is told the last moves, as the game page shows them


def game(title):
    players, options, seed = GAMES[title][0]
    return engine.get(title), play(title, players, options, seed), players


def mover_of(rules, positions, k):
    """The seat that made the move leading to position k."""
    return rules.to_move(positions[k - 1][0])


def recent_for(rules, positions, i, seat, names=NAMES):
    """The moves since `seat`'s last turn (its own moves of the turn under way included), as the service has them."""
    moves = []
    others_seen = False
    for k in range(i, 0, -1):
        who = mover_of(rules, positions, k)
        if seat is None and len(moves) == SPECTATOR_MOVES:
            break
        if who == seat and others_seen:
            break
        others_seen = others_seen or who != seat
        moves.insert(0, {"seq": k, "seat": who, "player": names[who], "notation": positions[k][1]})
    return moves


def legal_texts(rules, state, seat):
    if seat is None or rules.to_move(state) != seat:
        return []
    return [rules.notation(state, m) for m in rules.legal_moves(state)]


def text_for(title, rules, positions, i, seat, players):
    state = positions[i][0]
    return board_text(title, rules.view(state, seat), names=NAMES[:players], seat=seat,
                      legal_moves=legal_texts(rules, state, seat), recent=recent_for(rules, positions, i, seat))


def index(positions, stage):
    return round(STAGES[stage] * (len(positions) - 1))


def keys_of(data, found=None):
    """Every key of a view, at any depth."""
    found = set() if found is None else found
    if isinstance(data, dict):
        for key, value in data.items():
            found.add(key)
            keys_of(value, found)
    elif isinstance(data, list):
        for value in data:
            keys_of(value, found)
    return found


def statements(lines):
    """The lines joined back into what was written: a bullet with its indented rest, a paragraph with its wrap."""
    out: list[str] = []
    for line in lines:
        prev = out[-1] if out else ""
        bullet_rest = line.startswith("  ") and not line.lstrip().startswith("- ") and prev.lstrip().startswith("- ")
        paragraph_rest = (line and not line.startswith((" ", "- ")) and prev and not prev.startswith("- ")
                          and not prev.endswith((".", ":", "!", "?")))
        if bullet_rest or paragraph_rest:
            out[-1] = f"{prev} {line.strip()}"
        else:
            out.append(line)
    return out


def check_plain(lines, view):
    """At most WIDTH characters a line, at most MAX_LINES lines, and nothing of JSON or Python in them."""
    assert lines and all(isinstance(line, str) and "\n" not in line for line in lines)
    assert len(lines) <= MAX_LINES, f"{len(lines)} lines"
    for line in lines:
        assert len(line) <= WIDTH, f"too long ({len(line)}): {line!r}"
        assert line == line.rstrip(), f"trailing space: {line!r}"
    text = "\n".join(lines)
    for bad in ("{", "}", "[", "]", '"', "null", "None", "True", "False", "_", "Seat ", "seat "):
        assert bad not in text, f"{bad!r} in the text:\n{text}"
    # A view dumped key by key reads "  pending: ..." or "tiles=...": nothing written starts with a view key.
    written = "\n".join(statements(lines))
    for key in keys_of(view):
        shape = re.compile(rf"^\s*(- )?{re.escape(key)}\s*[:=]|\b{re.escape(key)}=", re.IGNORECASE | re.MULTILINE)
        assert not shape.search(written), f"view key {key!r} shown as a field"


def mentioned(text, word):
    """Whether a place is named as a whole word: '1,2' is not found inside '-1,2' or '1,-2'."""
    flat = " ".join(text.split())  # a place may be wrapped over two lines
    return re.search(rf"(?<![\w,+#-]){re.escape(word)}(?![\w+]|,-?\d)", flat, re.IGNORECASE) is not None


# --- places named by moves, per title ---------------------------------------------------------------


def places(title, view, notation):
    """The words a text must use to show where a move acts: islands, squares and segments, fields."""
    if title == "tongiaki":
        found = [t["tile"] for t in view["tiles"] if t["kind"] == "island" and mentioned(notation, t["tile"])]
        tile = re.match(r"^tile (\w) ", notation)
        return found + ([f"water tile {tile[1]}"] if tile else [])
    if title == "discovery":
        found = re.findall(r"-?\d+,-?\d+", notation)
        segment = re.match(r"^(?:deploy|remove -?\d+,-?\d+) (\S+)$", notation)
        return found + ([segment[1]] if segment else [])
    found = re.findall(r"-?\d+,-?\d+", notation)
    if notation.startswith("play conquer"):
        found = found[:1]  # the star: which of the fields around it a card takes is the reader's choice
    piece = re.match(r"^(?:move|land|jump|recall|roll|play transport) (\d)\b", notation)
    return found + ([f"piece {piece[1]}"] if piece else [])


def more_counts(text):
    """The sum of every 'and N more' in a text: places a long list left out and counted."""
    return sum(int(n) for n in re.findall(r"\band (\d+) more\b", text))


# --- the three stages of one game per title ------------------------------------------------------


@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize("title", TITLES)
def test_text_is_plain_short_and_names_players_by_name_and_colour(title, stage):
    rules, positions, players = game(title)
    i = index(positions, stage)
    for seat in [None, *range(players)]:
        lines = text_for(title, rules, positions, i, seat, players)
        view = rules.view(positions[i][0], seat)
        check_plain(lines, view)
        text = "\n".join(lines)
        for p in range(players):
            assert f"{NAMES[p]} ({view['colours'][p]}" in text, f"{NAMES[p]} is not named with the colour"


@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize("title", TITLES)
def test_the_leader_and_every_score_are_shown(title, stage):
    rules, positions, players = game(title)
    i = index(positions, stage)
    state = positions[i][0]
    view = rules.view(state, None)
    lines = text_for(title, rules, positions, i, None, players)
    scores = view["scores"]
    result = view.get("result")
    firsts = ([p for p in range(players) if result["ranks"][p] == 1] if result
              else [p for p in range(players) if scores[p] == max(scores)])
    lead = statements(lines)[statements(lines).index("") + 1]  # the standing follows the headline
    if len(firsts) < players:
        for p in firsts:
            assert f"{NAMES[p]} ({view['colours'][p]})" in lead
        for p in set(range(players)) - set(firsts):
            assert NAMES[p] not in lead
    assert re.search(rf"\b{scores[firsts[0]]} (point|star|field)s?\b", lead)
    for p in range(players):
        row = [line for line in lines
               if re.match(rf"- {NAMES[p]} \({view['colours'][p]}\)(, you)?: \d+ (point|star|field)", line)]
        assert len(row) == 1, f"one line for {NAMES[p]}"
        assert re.search(rf": {scores[p]} (point|star|field)s?\b", row[0]), row[0]
    if result:
        assert lines[0].find("over") >= 0 or lines[1].find("over") >= 0


@pytest.mark.parametrize("title", TITLES)
def test_what_the_recent_moves_did_is_told(title):
    """Each move since the reader's last turn that the text keeps names its player and its places."""
    rules, positions, players = game(title)
    told_runs = 0
    for i in range(index(positions, "mid"), len(positions), max(1, len(positions) // 12)):
        seat = rules.to_move(positions[i][0])
        if seat is None:
            continue
        recent = recent_for(rules, positions, i, seat)
        lines = text_for(title, rules, positions, i, seat, players)
        text = "\n".join(lines)
        start = lines.index("Since your last turn:")
        end = lines.index("", start)
        news = "\n".join(lines[start:end])
        skipped = re.search(r"(\d+) earlier moves? left out", news)
        kept = recent[int(skipped[1]):] if skipped else recent
        assert kept, "the newest moves are always told"
        view = rules.view(positions[i][0], seat)
        for move in kept:
            who = "You" if move["seat"] == seat else f"{NAMES[move['seat']]} ({view['colours'][move['seat']]})"
            assert who in news
            for place in places(title, view, move["notation"]):
                assert mentioned(news, place), f"{move['notation']!r}: {place!r} not told in\n{news}"
        told_runs += 1
        assert text.count("Since your last turn:") == 1
    assert told_runs >= 5


@pytest.mark.parametrize("title", TITLES)
def test_the_places_of_the_legal_moves_are_named(title):
    """Every island, square, segment, field or piece a legal move names is in the text (or counted in 'N more')."""
    rules, positions, players = game(title)
    kinds = set()
    for i in range(0, len(positions) - 1, max(1, len(positions) // 40) | 1):  # odd: both phases of a turn
        state = positions[i][0]
        seat = rules.to_move(state)
        view = rules.view(state, seat)
        legal = legal_texts(rules, state, seat)
        lines = text_for(title, rules, positions, i, seat, players)
        board = "\n".join(lines)
        wanted = {place for move in legal for place in places(title, view, move)}
        missing = {place for place in wanted if not mentioned(board, place)}
        assert len(missing) <= more_counts(board), f"not named: {sorted(missing)}\n{board}"
        kinds |= {move.split()[0] for move in legal}
    assert len(kinds) >= 3, kinds


@pytest.mark.parametrize("title", TITLES)
def test_same_arguments_give_the_same_lines_and_the_view_is_left_alone(title):
    rules, positions, players = game(title)
    for i in range(0, len(positions), max(1, len(positions) // 10)):
        state = positions[i][0]
        seat = rules.to_move(state)
        view = rules.view(state, seat)
        before = copy.deepcopy(view)
        args = dict(names=NAMES[:players], seat=seat, legal_moves=legal_texts(rules, state, seat),
                    recent=recent_for(rules, positions, i, seat))
        first = board_text(title, view, **args)
        assert board_text(title, copy.deepcopy(view), **copy.deepcopy(args)) == first
        assert board_text(title, rules.view(rules.state_from_json(rules.state_to_json(state)), seat), **args) == first
        assert view == before


@pytest.mark.parametrize("title", TITLES)
def test_a_seats_text_ignores_what_it_cannot_see(title):
    """Re-draw what seat A cannot see (pile, deck, other hands): A's text and a spectator's stay the same."""
    rules, positions, players = game(title)
    checked = 0
    for i in range(0, len(positions), max(1, len(positions) // 15)):
        state = positions[i][0]
        for seat in [None, *range(players)]:
            recent = recent_for(rules, positions, i, seat)
            text = board_text(title, rules.view(state, seat), names=NAMES[:players], seat=seat,
                              legal_moves=legal_texts(rules, state, seat), recent=recent)
            for k in (1, 2):
                other = rules.resample_hidden(state, seat, derive_seed(i, f"text-{k}"))
                again = board_text(title, rules.view(other, seat), names=NAMES[:players], seat=seat,
                                   legal_moves=legal_texts(rules, other, seat), recent=recent)
                assert again == text, f"seat {seat}'s text changed with hidden information"
                checked += 1
    assert checked >= 40


def test_double_tile_hands_show_only_to_their_owner():
    """In Discovery's double-tile variant a seat's text names its own two tiles and nobody else's."""
    rules = engine.get("discovery")
    positions = play("discovery", 3, {"double": True}, 13, limit=120)
    shown = 0
    for i in range(2, len(positions), 9):
        state = positions[i][0]
        if rules.to_move(state) is None:
            continue
        hands = {seat: rules.view(state, seat)["hand"] for seat in range(3)}
        for seat in range(3):
            text = "\n".join(text_for("discovery", rules, positions, i, seat, 3))
            own = [f"#{t['tile']}" for t in hands[seat]]
            if "You hold" in text:
                assert all(mentioned(text.split("You hold")[1].split(".")[0], n) for n in own)
                shown += 1
            held = text.split("You hold")[1].split(".")[0] if "You hold" in text else ""
            for other in set(range(3)) - {seat}:
                foreign = {f"#{t['tile']}" for t in hands[other]} - set(own)
                assert not any(mentioned(held, n) for n in foreign)
        spectator = "\n".join(text_for("discovery", rules, positions, i, None, 3))
        assert "You hold" not in spectator
    assert shown >= 3


def test_an_unknown_title_is_refused():
    with pytest.raises(TextError):
        board_text("chess", {}, names=[], seat=None)


# --- every player count and option preset ----------------------------------------------------------

SWEEP_LIMIT = {"tongiaki": 400, "discovery": 400, "tapaono": 700}  # decisions played per game
SWEEP_STEP = {"tongiaki": 9, "discovery": 13, "tapaono": 37}       # every n-th position is rendered


def sweeps():
    for title in TITLES:
        rules = engine.get(title)
        for players in range(rules.min_players, rules.max_players + 1):
            for n, options in enumerate(rules.option_presets()):
                yield pytest.param(title, players, options, id=f"{title}-{players}p-{n}")


@pytest.mark.parametrize("title,players,options", list(sweeps()))
def test_every_seat_and_a_spectator_read_every_position(title, players, options):
    rules = engine.get(title)
    seed = derive_seed(players, f"text-sweep-{title}-{sorted(options.items())}") % 10_000
    positions = play(title, players, options, seed, limit=SWEEP_LIMIT[title])
    picks = set(range(0, len(positions), SWEEP_STEP[title])) | {len(positions) - 1}
    seen = set()
    for i, (state, _) in enumerate(positions):  # and the first position of every kind of decision
        view = rules.view(state, None)
        kind = (view.get("phase"), (view.get("pending") or {}).get("decision"))
        if kind not in seen:
            seen.add(kind)
            picks.add(i)
    for i in sorted(picks):
        for seat in [None, *range(players)]:
            lines = text_for(title, rules, positions, i, seat, players)
            check_plain(lines, rules.view(positions[i][0], seat))


def test_the_examples_in_docs_mail_are_what_the_code_writes():
    """docs/mail.md, 'The board in text', shows the mid-game text of each title's first game as it is."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "mail.md").read_text()
    section = doc[doc.index("## The board in text"):]
    shown = re.findall(r"\(position (\d+)\):\n\n```text\n(.*?)\n```", section, re.DOTALL)
    assert len(shown) == len(TITLES)
    for title, (position, text) in zip(["tongiaki", "discovery", "tapaono"], shown):
        rules, positions, players = game(title)
        i = index(positions, "mid")
        assert int(position) == i
        seat = rules.to_move(positions[i][0])
        written = text_for(title, rules, positions, i, seat, players)
        assert text.split("\n") == written, f"{title}: paste the new text into docs/mail.md"
