"""Tapaono in words: stars and who holds the fields around them, pieces, markers, depots, the fields a move names.

Reads only `engine.get("tapaono").view(state, seat)` (schema in docs/games/tapaono.md) and
the notation of moves; the only board data it uses is the engine's six directions from a
field to its neighbours. Fields are written `q,r` as in the notation. A player's fields
are told as runs along a row ("1,-6 to 6,-6"), never as a drawn map: the 151 fields laid
out are the picture's job. Tapaono hides only the order of the deck, which the view does
not hold.
"""

from __future__ import annotations

import re

from engine.tapaono.board import DIRECTIONS

from renderers.text.base import (
    LISTED, Mark, Parts, Reader, changes, headline, join, plural, recent_moves, some, standing, wrap,
)

CARDS = {"transport": "Transport +2", "conquer-six": "Conquer six", "conquer-three": "Conquer three",
         "raid": "Raid", "loss": "Loss", "landing": "Landing", "star-jump": "Star jump", "recall": "Recall"}
ANSWERS = {"accept": "accepted", "decline": "declined"}
QUIET_TOLD = 10     # from this many quiet rounds on, the text warns that the game may end quietly

_FIELD = r"(-?\d+),(-?\d+)"
_MOVE = re.compile(rf"^(move|land|jump) (\d) {_FIELD}$")
_PIECE = re.compile(r"^(recall|roll) (\d)$")
_REMOVE = re.compile(rf"^remove {_FIELD}$")
_TAKE = re.compile(r"^take (.+)$")
_TRANSPORT = re.compile(r"^play transport (\d)$")
_CONQUER = re.compile(rf"^play (conquer-three|conquer-six) {_FIELD}((?: -?\d+,-?\d+)*)$")
_PROPOSE = re.compile(r"^propose (\w+)$")


def card_name(label: str) -> str:
    return CARDS.get(label, label)


def field(q: int, r: int) -> str:
    return f"{q},{r}"


def fields_in(text: str) -> list[tuple[int, int]]:
    return [(int(q), int(r)) for q, r in re.findall(_FIELD, text)]


class Board:
    """Who holds each field, where the stars and pieces are, in the view's words."""

    def __init__(self, view: dict, reader: Reader):
        self.view = view
        self.reader = reader
        self.owner = {(q, r): owner for q, r, owner in view["fields"]}
        self.stars = {(s["q"], s["r"]): s for s in view["stars"]}

    def ring(self, q: int, r: int) -> list[tuple[int, int]]:
        return [(q + dq, r + dr) for dq, dr in DIRECTIONS if (q + dq, r + dr) in self.owner]

    def held(self, where: tuple[int, int]) -> str:
        """'free', 'yours', "Bea's", or 'a star'."""
        if where in self.stars:
            return "a star"
        owner = self.owner.get(where)
        return "free" if owner is None else self.reader.whose(owner)

    def grouped(self, fields: list[tuple[int, int]], limit: int = LISTED * 2) -> str:
        """Fields by who holds them: 'free 1,-5 and 1,-4; Bea's 0,1; the star 2,-4'."""
        groups: dict[str, list[str]] = {}
        for where in fields:
            groups.setdefault(self.held(where), []).append(field(*where))
        words = []
        for word, found in groups.items():
            if word == "a star":
                word = "the star" if len(found) == 1 else "the stars"
            words.append(f"{word} {some(found, limit)}")
        return "; ".join(words)

    def ring_count(self, q: int, r: int) -> str:
        """Who holds the fields around q,r: '4 yours, 1 Bea's, 1 free'."""
        counts: dict[str, int] = {}
        for where in self.ring(q, r):
            word = self.held(where)
            counts[word] = counts.get(word, 0) + 1
        order = ["yours"] + [self.reader.whose(p) for p in self.reader.players()] + ["free", "a star"]
        said = [f"{counts[w]} {'stars' if w == 'a star' and counts[w] > 1 else w}" for w in dict.fromkeys(order)
                if w in counts]
        return ", ".join(said)

    def where_piece(self, seat: int, number: int) -> str:
        piece = self.view["pieces"][seat][number - 1]
        if piece["field"] is None:
            return "in the spawn"
        q, r = piece["field"]
        return f"on the star {field(q, r)}" if (q, r) in self.stars else f"on {field(q, r)}"

    def territory(self, seat: int) -> list[str]:
        """A player's fields as runs along each row: '2,-7 to 5,-7'."""
        runs: list[list[tuple[int, int]]] = []
        for q, r, owner in self.view["fields"]:
            if owner != seat:
                continue
            if runs and runs[-1][-1] == (q - 1, r):
                runs[-1].append((q, r))
            else:
                runs.append([(q, r)])
        return [field(*run[0]) if len(run) == 1 else f"{field(*run[0])} to {field(*run[-1])}" for run in runs]


# --- moves in words -----------------------------------------------------------------------


def tell(seat: int | None, notations: list[str], board: Board) -> str:
    """One player's moves as a sentence: steps per piece, cards, rolls and the fields taken (as they are now)."""
    parts: list[str] = []
    paths: list[tuple[str, list[str]]] = []  # consecutive steps, per piece, told as one part
    removed: list[str] = []

    def flush_paths():
        if paths:
            parts.append("moved " + join([f"piece {piece} to {' then '.join(steps)}" for piece, steps in paths]))
            paths.clear()

    def flush():
        flush_paths()
        if removed:
            parts.append(f"removed the markers on {some(removed)}")
            removed.clear()

    for text in notations:
        m = _MOVE.match(text)
        if m and m[1] == "move":
            where = field(int(m[3]), int(m[4])) + (" (a star)" if (int(m[3]), int(m[4])) in board.stars else "")
            if removed:
                flush()
            if paths and paths[-1][0] == m[2]:
                paths[-1][1].append(where)
            else:
                paths.append((m[2], [where]))
            continue
        if (r := _REMOVE.match(text)):
            flush_paths()
            removed.append(field(int(r[1]), int(r[2])))
            continue
        if text == "stop":  # the end of a transported piece's steps: its path says it all
            continue
        flush()
        if m:
            parts.append(f"{'landed' if m[1] == 'land' else 'jumped'} piece {m[2]} "
                         f"{'on' if m[1] == 'land' else 'to'} the star {m[3]},{m[4]}")
        elif (p := _PIECE.match(text)):
            parts.append(f"recalled piece {p[2]} to the spawn" if p[1] == "recall" else f"rolled for piece {p[2]}")
        elif (t := _TAKE.match(text)):
            taken = fields_in(t[1])
            if not taken:
                parts.append("took no field")
            else:
                now = {}
                for where in taken:
                    now.setdefault(board.held(where), []).append(field(*where))
                held = "; ".join(f"{join(f)} {w}" for w, f in now.items()) if len(now) > 1 else next(iter(now))
                parts.append(f"took {join([field(*w) for w in taken])} (now {held})")
        elif (c := _TRANSPORT.match(text)):
            parts.append(f"played Transport +2 on piece {c[1]}")
        elif (c := _CONQUER.match(text)):
            parts.append(f"played {card_name(c[1])} around the star {c[2]},{c[3]}: {join(c[4].split())}")
        elif (c := _PROPOSE.match(text)):
            parts.append(f"proposed to change the mode to {c[1]}")
        elif text in ANSWERS:
            parts.append(f"{ANSWERS[text]} the change of mode")
        elif text == "keep":
            parts.append("kept the card drawn in the depot")
        elif text == "use":
            parts.append("took the card drawn into use")
        elif text == "skip":
            parts.append("let a card pass")
        elif text != "end":
            parts.append(f"played {text}")
    flush()
    return ("; ".join(parts) or "ended the phase") + "."


# --- the decision now -----------------------------------------------------------------------


SAID = {  # decisions whose words need nothing from the view
    "landing": "Landing: put a piece from the spawn on a free star, or skip",
    "star-jump": "Star jump: move a piece from a star to another free star, or skip",
    "recall": "Recall: a piece on a star goes back to the spawn",
    "dice": "roll the die for a piece, or end the dice phase",
    "conquest": "play a conquest card, propose a change of mode, or end the round",
}


def decision(view: dict, reader: Reader) -> str:
    pending = view.get("pending") or {}
    kind = pending.get("decision")
    if kind in SAID:
        return SAID[kind]
    if kind == "answer":
        proposal = pending.get("proposal") or {}
        return f"answer {reader.name(proposal.get('by', 0))}'s proposal to play in {proposal.get('mode')} mode"
    if kind == "move":
        owing = [str(p) for p in pending["must_move"]]
        if len(owing) == 1:
            return f"move piece {owing[0]} one field"
        return f"move pieces {join(owing)} one field each" if owing else "move the pieces"
    if kind == "continue":
        return f"piece {pending['piece']} may go {plural(pending['steps_left'], 'more field')}, or stop"
    if kind == "keep-or-use":
        return f"keep the drawn {card_name(pending['card'])} in the depot or use it this round"
    if kind in ("raid", "loss"):
        markers = plural(pending["remaining"], "marker")
        own = "your" if view["to_move"] == reader.seat else "their"
        return f"Raid: remove up to {markers} of the opponent" if kind == "raid" else \
            f"Loss: remove {markers} of {own} own"
    if kind == "take":
        if pending.get("roll") == 6:
            return f"a 6 for piece {pending['piece']}: choose the {plural(pending['exactly'], 'free field')} to take"
        return f"a roll of {pending['roll']} for piece {pending['piece']}: choose up to {pending['at_most']} fields"
    return "decide"


def mode_sentence(view: dict) -> str:
    goal = view["goal"]
    counting = [s for s in view["stars"] if s["counts"]]
    which = "" if len(counting) == len(view["stars"]) else f" of the {len(counting)} stars that count"
    if goal:
        text = f"the first to surround {plural(goal, 'star')}{which} wins"
    else:
        text = "more fields on the board wins"
    end = {"fast": "the game ends when the deck runs out", "absolute": "the game ends when a stock is empty"}
    if view["mode"] in end:
        text = f"{end[view['mode']]}; {text}"
    elif view["mode"] == "free" and view["options"].get("deck_end"):
        text = f"the game ends when the deck runs out; {text}"
    deck = "used cards are shuffled back" if view["discard_reshuffled"] else "used cards leave the game"
    return f"{view['mode'].capitalize()} mode: {text}. {plural(view['deck_size'], 'card')} in the deck; {deck}."


# --- the board part -----------------------------------------------------------------------


def choice_lines(view: dict, board: Board, reader: Reader, budget: int) -> list[str]:
    """What the legal moves allow, with every field, star and piece they name and who holds it."""
    steps: dict[str, list[tuple[int, int]]] = {}
    lands: dict[str, list[str]] = {}
    jumps: dict[str, list[str]] = {}
    recalls, rolls, transports, removes, proposals = [], [], [], [], []
    conquests: dict[tuple[str, tuple[int, int]], None] = {}
    words = set()
    for text in reader.legal:
        if (m := _MOVE.match(text)):
            target = (int(m[3]), int(m[4]))
            into = {"move": steps, "land": lands, "jump": jumps}[m[1]]
            into.setdefault(m[2], []).append(target if m[1] == "move" else field(*target))
        elif (m := _PIECE.match(text)):
            (recalls if m[1] == "recall" else rolls).append(m[2])
        elif (m := _REMOVE.match(text)):
            removes.append((int(m[1]), int(m[2])))
        elif (m := _TRANSPORT.match(text)):
            transports.append(m[1])
        elif (m := _CONQUER.match(text)):
            conquests[(m[1], (int(m[2]), int(m[3])))] = None
        elif (m := _PROPOSE.match(text)):
            proposals.append(m[1])
        elif _TAKE.match(text):
            words.add("take")
        else:
            words.add(text)
    me = reader.seat
    if me is None or not reader.legal:
        return []
    # P8: no card with commands off, a full depot, or five commands played this round.
    draws_card = (view["options"].get("commands", True) and len(view["depots"][me]) < view["depot_size"]
                  and view["commands_played"] < view["commands_per_round"])
    lines = []
    for piece, targets in steps.items():
        draws = " (a step onto a star draws a command card)" if draws_card and any(
            t in board.stars for t in targets) else ""
        lines += wrap(f"Piece {piece} ({board.where_piece(me, int(piece))}) may step to: "
                      f"{board.grouped(targets)}{draws}.", Mark.BULLET)
    for piece, stars in lands.items():
        lines += wrap(f"Piece {piece} may land on the free {'star' if len(stars) == 1 else 'stars'} "
                      f"{join(stars, 'or')}.", Mark.BULLET)
    for piece, stars in jumps.items():
        lines += wrap(f"Piece {piece} ({board.where_piece(me, int(piece))}) may jump to the free "
                      f"{'star' if len(stars) == 1 else 'stars'} {join(stars, 'or')}.", Mark.BULLET)
    if recalls:
        lines += wrap("Recall goes to piece " + join([f"{p} ({board.where_piece(me, int(p))})" for p in recalls],
                                                     "or") + ".", Mark.BULLET)
    if transports:
        lines += wrap(f"Transport +2 may go on piece {join(transports, 'or')} before it moves.", Mark.BULLET)
    for piece in rolls:
        number = int(piece)
        where = view["pieces"][me][number - 1]["field"]
        lines += wrap(f"Roll for piece {piece} ({board.where_piece(me, number)}; around it "
                      f"{board.ring_count(*where)}).", Mark.BULLET)
    if "take" in words:
        pending = view.get("pending") or {}
        options = [tuple(f) for f in pending.get("fields", [])]
        lines += wrap(f"The roll for piece {pending.get('piece')} may act on these fields around it (a free "
                      f"one becomes yours, the opponent's becomes free): {board.grouped(options)}.", Mark.BULLET)
    if removes:
        lines += wrap(f"Markers you may remove: {board.grouped(removes)}.", Mark.BULLET)
    for card in sorted({card for card, _ in conquests}):
        stars = [star for c, star in conquests if c == card]
        detail = []
        for star in stars:
            mine = sum(1 for w in board.ring(*star) if board.owner.get(w) == me)
            held = f" (you hold {mine})" if mine else ""
            others = board.grouped([w for w in board.ring(*star) if board.owner.get(w) != me])
            detail += wrap(f"{field(*star)}{held}: {others}", Mark.SUB)
        if len(lines) + len(detail) + 1 > budget - 2:  # too long: how many fields each star has left to take
            counts = [f"{field(*star)} ({board.ring_count(*star)})" for star in stars]
            detail = wrap(f"{join(counts)}", Mark.SUB)
        lines += wrap(f"{card_name(card)} around the star:", Mark.BULLET) + detail
    if proposals:
        lines += wrap(f"You may propose to play in {join(proposals, 'or')} mode.", Mark.BULLET)
    others = {"keep": "keep the card", "use": "use it", "skip": "skip", "stop": "stop", "end": "end",
              "accept": "accept", "decline": "decline"}
    also = [others[w] for w in others if w in words]
    if also:
        lines += wrap(f"{'Or you may' if lines else 'You may'} {join(also, 'or')}.", Mark.BULLET)
    return ["Your choices:"] + lines if lines else []


def star_lines(view: dict, board: Board, reader: Reader) -> list[str]:
    """Each star that counts: surrounded by whom, or who holds the fields around it."""
    lines = ["Around the stars that count:" if any(not s["counts"] for s in view["stars"]) else "Around the stars:"]
    untouched = []
    for star in view["stars"]:
        if not star["counts"]:
            continue
        q, r = star["q"], star["r"]
        if star["surrounded_by"] is not None:
            lines += wrap(f"{field(q, r)}: surrounded by {reader.who(star['surrounded_by'])}", Mark.BULLET)
        elif any(board.owner.get(w) is not None for w in board.ring(q, r)):
            lines += wrap(f"{field(q, r)}: {board.ring_count(q, r)}", Mark.BULLET)
        else:
            untouched.append(field(q, r))
    if untouched:
        lines += wrap(f"Nobody around {join(untouched)}.", Mark.BULLET)
    return lines


def territory_lines(board: Board, reader: Reader) -> list[str]:
    lines = []
    for p in reader.players():
        runs = board.territory(p)
        if runs:
            lines += wrap(f"{'You hold' if p == reader.seat else reader.name(p) + ' holds'} "
                          f"{'; '.join(runs)}.", Mark.BULLET)
    return (["The fields held, row by row:"] + lines) if lines else []


# --- the whole text -----------------------------------------------------------------------


def parts(view: dict, reader: Reader) -> Parts:
    """Head, standing, changes, and the board part as a function of its line budget."""
    board = Board(view, reader)
    over = view.get("phase") == "over" or view.get("to_move") is None
    result = view.get("result") or {}
    rounds = sum(view["rounds"])
    if over:
        head = wrap(f"Tapaono, after {plural(rounds, 'round')}. The game is over. {result.get('reason', '')}")
    else:
        head = wrap(f"Tapaono, round {rounds}. {headline(reader, view['to_move'], decision(view, reader))}")
    head += wrap(mode_sentence(view))
    unit = "star" if view["goal"] else "field"
    details = {}
    for p in reader.players():
        facts = []
        if view["goal"]:
            facts.append(f"{plural(view['markers_on_board'][p], 'field')} on the board")
        facts.append(f"{plural(view['markers_left'][p], 'marker')} in stock")
        pieces = [f"{piece['piece']} {board.where_piece(p, piece['piece'])}" for piece in view["pieces"][p]]
        facts.append(f"pieces {join(pieces)}")
        depot = [card_name(c) for c in view["depots"][p]]
        facts.append(f"in the depot {join(depot)}" if depot else "nothing in the depot")
        details[p] = ", ".join(facts[:-2]) + "; " + "; ".join(facts[-2:])
    lines = standing(reader, view["scores"], details, unit, over=over, ranks=result.get("ranks"))
    if view.get("in_use") and not over:
        lines += wrap(f"Cards in use this round: {join([card_name(c) for c in view['in_use']])}.")
    if view.get("proposal") and not over:
        proposal = view["proposal"]
        lines += wrap(f"{reader.who(proposal['by'])} proposes to play in {proposal['mode']} mode.")
    if view.get("quiet_rounds", 0) >= QUIET_TOLD and not over:
        lines += wrap(f"{view['quiet_rounds']} rounds in a row without a marker placed or removed; "
                      f"after {view['quiet_limit']} the game ends as it stands.")
    moves = recent_moves(reader, view.get("last_move"))
    extra = []
    roll = view.get("last_roll")
    if roll:
        whose = reader.whose(roll["seat"]).replace("yours", "your")
        extra.append(f"the last roll was a {roll['value']}"
                     + (f" for {whose} piece {roll['piece']}" if roll.get("piece") else
                        f" for {card_name(roll.get('card') or '')}"))
    drawn = view.get("drawn")
    if drawn:
        extra.append(f"the last card drawn was {card_name(drawn['card'])} ({reader.name(drawn['seat'])})")
    after = "; ".join(extra)

    def told(room: int) -> list[str]:
        return changes(reader, moves, lambda seat, notations: tell(seat, notations, board), room,
                       f"{after[:1].upper()}{after[1:]}." if after else "")

    def board_part(budget: int) -> list[str]:
        out = choice_lines(view, board, reader, budget)
        for block in (star_lines(view, board, reader), territory_lines(board, reader)):
            if len(out) + len(block) <= budget:
                out += block
        return out

    return Parts(head, lines, told, board_part)
