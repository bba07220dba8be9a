"""Tapaono in words: stars and who holds the fields around them, pieces, markers, depots, the fields a move names.

Reads only `engine.get("tapaono").view(state, seat)` (schema in docs/games/tapaono.md) and
the notation of moves; the only board data it uses is the engine's six directions from a
field to its neighbours. Fields are written `q,r` as in the notation. A player's fields
are told as runs along a row ("1,-6 to 6,-6"), never as a drawn map: the 151 fields laid
out are the picture's job. Tapaono hides only the order of the deck, which the view does
not hold. Card names (Transport +2, Conquer six...) and mode names are written as the
notation and the German rules page have them.
"""

from __future__ import annotations

import re

from engine.tapaono.board import DIRECTIONS, ENTRY_ROUNDS

from renderers.i18n import N_, Texts
from renderers.text.base import (
    LISTED, Mark, Parts, Reader, Unit, changes, did, headline, join, recent_moves, some, standing, tell_steps,
    wrap,
)

CARDS = {"transport": "Transport +2", "conquer-six": "Conquer six", "conquer-three": "Conquer three",
         "raid": "Raid", "loss": "Loss", "landing": "Landing", "star-jump": "Star jump", "recall": "Recall"}
QUIET_TOLD = 10     # from this many quiet rounds on, the text warns that the game may end quietly

_FIELD = r"(-?\d+),(-?\d+)"
_MOVE = re.compile(rf"^(move|land|jump) (\d) {_FIELD}$")
_PIECE = re.compile(r"^(recall|roll) (\d)$")
_REMOVE = re.compile(rf"^remove {_FIELD}$")
_TAKE = re.compile(r"^take (.+)$")
_TRANSPORT = re.compile(r"^play transport (\d)$")
_CONQUER = re.compile(rf"^play (conquer-three|conquer-six) {_FIELD}((?: -?\d+,-?\d+)*)$")
_PROPOSE = re.compile(r"^propose (\w+)$")

# Who holds a field, as Board.held tells it: a seat number, or one of these.
FREE = "free"
STAR = "star"


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
        self.t = reader.texts
        self.owner = {(q, r): owner for q, r, owner in view["fields"]}
        self.stars = {(s["q"], s["r"]): s for s in view["stars"]}

    def ring(self, q: int, r: int) -> list[tuple[int, int]]:
        return [(q + dq, r + dr) for dq, dr in DIRECTIONS if (q + dq, r + dr) in self.owner]

    def held(self, where: tuple[int, int]) -> int | str:
        """Who holds a field: a seat, FREE, or STAR for a star."""
        if where in self.stars:
            return STAR
        owner = self.owner.get(where)
        return FREE if owner is None else owner

    def taken(self, fields: list[tuple[int, int]]) -> str:
        """Fields taken by a roll and who holds them now: "took 1,2 (now yours)", "took 1,2 and 3,4 (now 1,2 yours;
        3,4 free)"."""
        t = self.t
        listed = join(t, [field(*w) for w in fields])
        now: dict[int | str, list[str]] = {}
        for where in fields:
            now.setdefault(self.held(where), []).append(field(*where))
        if len(now) == 1:
            holder = next(iter(now))
            if holder == STAR:
                return t.gettext("took %(fields)s (now a star)", fields=listed)
            if holder == FREE:
                return t.gettext("took %(fields)s (now free)", fields=listed)
            if holder == self.reader.seat:
                return t.gettext("took %(fields)s (now yours)", fields=listed)
            return t.gettext("took %(fields)s (now %(name)s's)", fields=listed, name=self.reader.name(holder))
        held = []
        for holder, found in now.items():
            values = {"fields": join(t, found)}
            if holder == STAR:
                held.append(t.gettext("%(fields)s a star", **values))
            elif holder == FREE:
                held.append(t.gettext("%(fields)s free", **values))
            elif holder == self.reader.seat:
                held.append(t.gettext("%(fields)s yours", **values))
            else:
                held.append(t.gettext("%(fields)s %(name)s's", name=self.reader.name(holder), **values))
        return t.gettext("took %(fields)s (now %(held)s)", fields=listed, held="; ".join(held))

    def grouped(self, fields: list[tuple[int, int]], limit: int = LISTED * 2) -> str:
        """Fields by who holds them: 'free 1,-5 and 1,-4; Bea's 0,1; the star 2,-4'."""
        t = self.t
        groups: dict[int | str, list[str]] = {}
        for where in fields:
            groups.setdefault(self.held(where), []).append(field(*where))
        words = []
        for holder, found in groups.items():
            listed = some(t, found, limit)
            if holder == STAR:
                words.append(t.ngettext("the star %(fields)s", "the stars %(fields)s", len(found), fields=listed))
            elif holder == FREE:
                words.append(t.gettext("free %(fields)s", fields=listed))
            elif holder == self.reader.seat:
                words.append(t.gettext("yours %(fields)s", fields=listed))
            else:
                words.append(t.gettext("%(name)s's %(fields)s", name=self.reader.name(holder), fields=listed))
        return "; ".join(words)

    def ring_count(self, q: int, r: int) -> str:
        """Who holds the fields around q,r: '4 yours, 1 Bea's, 1 free'."""
        t = self.t
        counts: dict[int | str, int] = {}
        for where in self.ring(q, r):
            holder = self.held(where)
            counts[holder] = counts.get(holder, 0) + 1
        order = [self.reader.seat] + list(self.reader.players()) + [FREE, STAR]
        said = []
        for holder in dict.fromkeys(order):
            if holder not in counts:
                continue
            n = counts[holder]
            if holder == STAR:
                said.append(t.ngettext("%(num)d a star", "%(num)d stars", n))
            elif holder == FREE:
                said.append(t.ngettext("%(num)d free", "%(num)d free", n))
            elif holder == self.reader.seat:
                said.append(t.ngettext("%(num)d yours", "%(num)d yours", n))
            else:
                said.append(t.ngettext("%(num)d %(name)s's", "%(num)d %(name)s's", n, name=self.reader.name(holder)))
        return ", ".join(said)

    def where_piece(self, seat: int, number: int) -> str:
        t = self.t
        piece = self.view["pieces"][seat][number - 1]
        if piece["field"] is None:
            return t.gettext("in the spawn")
        q, r = piece["field"]
        return t.gettext("on the star %(field)s", field=field(q, r)) if (q, r) in self.stars \
            else t.gettext("on %(field)s", field=field(q, r))

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
        return [field(*run[0]) if len(run) == 1 else self.t.gettext("%(first)s to %(last)s", first=field(*run[0]),
                                                                     last=field(*run[-1])) for run in runs]


# --- moves in words -----------------------------------------------------------------------


ANSWERED = {"accept": N_("accepted the change of mode"), "decline": N_("declined the change of mode")}
DONE = {"keep": N_("kept the card drawn in the depot"), "use": N_("took the card drawn into use"),
        "skip": N_("let a card pass")}


def tell(seat: int | None, notations: list[str], board: Board) -> str:
    """What one player's moves did: steps per piece, cards, rolls and the fields taken (as they are now)."""
    t = board.t
    parts: list[str] = []
    paths: list[tuple[str, list[str]]] = []  # consecutive steps, per piece, told as one part
    removed: list[str] = []

    def path(piece: str, steps: list[str]) -> str:
        route = steps[0]
        for step in steps[1:]:
            route = t.gettext("%(path)s then %(field)s", path=route, field=step)
        return t.gettext("piece %(piece)s to %(path)s", piece=piece, path=route)

    def flush_paths():
        if paths:
            parts.append(t.gettext("moved %(paths)s", paths=join(t, [path(piece, steps) for piece, steps in paths])))
            paths.clear()

    def flush():
        flush_paths()
        if removed:
            parts.append(t.gettext("removed the markers on %(fields)s", fields=some(t, removed)))
            removed.clear()

    for text in notations:
        m = _MOVE.match(text)
        if m and m[1] == "move":
            where = field(int(m[3]), int(m[4]))
            if (int(m[3]), int(m[4])) in board.stars:
                where = t.gettext("%(field)s (a star)", field=where)
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
            star = f"{m[3]},{m[4]}"
            parts.append(t.gettext("landed piece %(piece)s on the star %(star)s", piece=m[2], star=star)
                         if m[1] == "land" else
                         t.gettext("jumped piece %(piece)s to the star %(star)s", piece=m[2], star=star))
        elif (p := _PIECE.match(text)):
            parts.append(t.gettext("recalled piece %(piece)s to the spawn", piece=p[2]) if p[1] == "recall"
                         else t.gettext("rolled for piece %(piece)s", piece=p[2]))
        elif (k := _TAKE.match(text)):
            taken = fields_in(k[1])
            parts.append(board.taken(taken) if taken else t.gettext("took no field"))
        elif (c := _TRANSPORT.match(text)):
            parts.append(t.gettext("played Transport +2 on piece %(piece)s", piece=c[1]))
        elif (c := _CONQUER.match(text)):
            star = field(int(c[2]), int(c[3]))
            parts.append(t.gettext("played %(card)s around the star %(star)s: %(fields)s", card=card_name(c[1]),
                                   star=star, fields=join(t, c[4].split())))
        elif (c := _PROPOSE.match(text)):
            parts.append(t.gettext("proposed to change the mode to %(mode)s", mode=mode_word(t, c[1])))
        elif text in ANSWERED:
            parts.append(t.gettext(ANSWERED[text]))
        elif text in DONE:
            parts.append(t.gettext(DONE[text]))
        elif text != "end":
            parts.append(t.gettext("played %(move)s", move=text))
    flush()
    return "; ".join(parts) or t.gettext("ended the phase")


# --- the decision now -----------------------------------------------------------------------


def movers(view: dict) -> tuple[list[int], list[int], bool]:
    """The pieces of the player to move that can make their move of phase 1 now (P5, P6): those on the
    board, those in the spawn, and whether only one of those in the spawn may enter (the player's first
    three rounds, while none has entered). A piece that owes its move but has no free field to step on
    is not named: it goes back to the spawn when the phase ends. Read from the view alone, so that the
    picture, which has no legal moves, says what the moves are (tests/renderers/test_33_words.py checks
    it against the engine's legal moves)."""
    pending = view.get("pending") or {}
    seat = pending.get("seat", view.get("to_move"))
    if seat is None:
        return [], [], False
    owner = {(q, r): who for q, r, who in view["fields"]}
    occupied = {tuple(p["field"]) for mine in view["pieces"] for p in mine if p["field"] is not None}

    def free(place: tuple[int, int]) -> bool:
        return place in owner and owner[place] != 1 - seat and place not in occupied

    on_board, in_spawn = [], []
    for number in pending.get("must_move") or []:
        where = view["pieces"][seat][number - 1]["field"]
        if where is None:
            if any(free(tuple(entry)) for entry in view["spawns"][seat]["entries"]):
                in_spawn.append(number)
        elif any(free((where[0] + dq, where[1] + dr)) for dq, dr in DIRECTIONS):
            on_board.append(number)
    return on_board, in_spawn, view["rounds"][seat] <= ENTRY_ROUNDS


def move_duty(t: Texts, view: dict) -> str:
    """What phase 1 asks now: 'move piece 1 one field and bring one of pieces 2 or 3 onto the board from the
    spawn'; only the pieces that can move, and one piece to enter in a player's first three rounds."""
    on_board, in_spawn, one = movers(view)
    moving, entering = [str(p) for p in on_board], [str(p) for p in in_spawn]
    enter = ""
    if one and len(entering) > 1:
        enter = t.gettext("one of pieces %(pieces)s", pieces=join(t, entering, "or"))
    elif entering:
        enter = t.ngettext("piece %(pieces)s", "pieces %(pieces)s", len(entering), pieces=join(t, entering))
    if moving and entering:
        return t.ngettext("move %(moving)s one field and bring %(entering)s onto the board from the spawn",
                          "move %(moving)s one field each and bring %(entering)s onto the board from the spawn",
                          len(moving), entering=enter,
                          moving=t.ngettext("piece %(pieces)s", "pieces %(pieces)s", len(moving),
                                            pieces=join(t, moving)))
    if entering:
        return t.gettext("bring %(entering)s onto the board from the spawn", entering=enter)
    if len(moving) == 1:
        return t.gettext("move piece %(piece)s one field", piece=moving[0])
    if moving:
        return t.gettext("move pieces %(pieces)s one field each", pieces=join(t, moving))
    return t.gettext("move the pieces")


CONQUEST_CARDS = ("conquer-six", "conquer-three")


def conquest_choices(view: dict) -> tuple[list[str], bool]:
    """What phase 4 offers the player to move (P11, P12, P17): the conquest cards (as the notation names
    them) they hold and can play now, and whether they may propose a change of mode."""
    seat = view.get("to_move")
    if seat is None:
        return [], False
    held = set(view["depots"][seat]) | set(view.get("in_use") or [])
    able = view["markers_left"][seat] > 0 and view["commands_played"] < view["commands_per_round"]
    cards = [card for card in CONQUEST_CARDS if able and card in held]
    proposal = view.get("proposal")
    propose = bool(view["options"].get("mode_change")) and not (proposal and proposal.get("by") == seat)
    return cards, propose


def conquest_duty(t: Texts, view: dict) -> str:
    """What phase 4 asks now, naming only what the player can do."""
    cards, propose = conquest_choices(view)
    names = join(t, [card_name(c) for c in cards], "or")
    if cards and propose:
        return t.gettext("play %(cards)s, propose a change of mode, or end the round", cards=names)
    if cards:
        return t.gettext("play %(cards)s, or end the round", cards=names)
    if propose:
        return t.gettext("propose a change of mode, or end the round")
    return t.gettext("end the round")


SAID = {  # decisions whose words need nothing from the view
    "landing": N_("Landing: put a piece from the spawn on a free star, or skip"),
    "star-jump": N_("Star jump: move a piece from a star to another free star, or skip"),
    "recall": N_("Recall: a piece on a star goes back to the spawn"),
    "dice": N_("roll the die for a piece, or end the dice phase"),
}


def decision(view: dict, reader: Reader) -> str:
    t = reader.texts
    pending = view.get("pending") or {}
    kind = pending.get("decision")
    if kind in SAID:
        return t.gettext(SAID[kind])
    if kind == "answer":
        proposal = pending.get("proposal") or {}
        return t.gettext("answer %(name)s's proposal to play in %(mode)s mode", name=reader.name(proposal.get("by", 0)),
                         mode=mode_word(t, proposal.get("mode", "")))
    if kind == "move":
        return move_duty(t, view)
    if kind == "conquest":
        return conquest_duty(t, view)
    if kind == "continue":
        return t.ngettext("piece %(piece)s may go %(num)d more field, or stop",
                          "piece %(piece)s may go %(num)d more fields, or stop", pending["steps_left"],
                          piece=pending["piece"])
    if kind == "keep-or-use":
        return t.gettext("keep the drawn %(card)s in the depot or use it this round", card=card_name(pending["card"]))
    if kind == "raid":
        return t.ngettext("Raid: remove up to %(num)d marker of the opponent",
                          "Raid: remove up to %(num)d markers of the opponent", pending["remaining"])
    if kind == "loss":
        if view["to_move"] == reader.seat:
            return t.ngettext("Loss: remove %(num)d marker of your own", "Loss: remove %(num)d markers of your own",
                              pending["remaining"])
        return t.ngettext("Loss: remove %(num)d marker of their own", "Loss: remove %(num)d markers of their own",
                          pending["remaining"])
    if kind == "take":
        if pending.get("roll") == 6:
            return t.ngettext("a 6 for piece %(piece)s: choose the %(num)d free field to take",
                              "a 6 for piece %(piece)s: choose the %(num)d free fields to take", pending["exactly"],
                              piece=pending["piece"])
        return t.gettext("a roll of %(roll)s for piece %(piece)s: choose up to %(most)s fields", roll=pending["roll"],
                         piece=pending["piece"], most=pending["at_most"])
    return t.gettext("decide")


MODES = {"normal": N_("Normal"), "fast": N_("Fast"), "absolute": N_("Absolute"), "free": N_("Free")}


def mode_word(t: Texts, mode: str) -> str:
    """A mode's name in the reader's words ("Schnell" for `fast`, as the German rules call it); notation is `fast`."""
    return t.gettext(MODES[mode]) if mode in MODES else mode.capitalize()


def mode_sentence(t: Texts, view: dict) -> str:
    goal = view["goal"]
    counting = [s for s in view["stars"] if s["counts"]]
    if goal and len(counting) == len(view["stars"]):
        text = t.ngettext("the first to surround %(num)d star wins", "the first to surround %(num)d stars wins", goal)
    elif goal:
        text = t.ngettext("the first to surround %(num)d star of the %(counting)s stars that count wins",
                          "the first to surround %(num)d stars of the %(counting)s stars that count wins", goal,
                          counting=len(counting))
    else:
        text = t.gettext("more fields on the board wins")
    if view["mode"] == "fast" or (view["mode"] == "free" and view["options"].get("deck_end")):
        text = t.gettext("the game ends when the deck runs out; %(goal)s", goal=text)
    elif view["mode"] == "absolute":
        text = t.gettext("the game ends when a stock is empty; %(goal)s", goal=text)
    deck = t.gettext("used cards are shuffled back") if view["discard_reshuffled"] \
        else t.gettext("used cards leave the game")
    mode = mode_word(t, view["mode"])
    return t.ngettext("%(mode)s mode: %(rules)s. %(num)d card in the deck; %(deck)s.",
                      "%(mode)s mode: %(rules)s. %(num)d cards in the deck; %(deck)s.", view["deck_size"], mode=mode,
                      rules=text, deck=deck)


# --- the board part -----------------------------------------------------------------------


OTHERS = {"keep": N_("keep the card"), "use": N_("use it"), "skip": N_("skip"), "stop": N_("stop"), "end": N_("end"),
          "accept": N_("accept"), "decline": N_("decline")}


def choice_lines(view: dict, board: Board, reader: Reader, budget: int) -> list[str]:
    """What the legal moves allow, with every field, star and piece they name and who holds it."""
    t = reader.texts
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
        values = {"piece": piece, "where": board.where_piece(me, int(piece)), "fields": board.grouped(targets)}
        if draws_card and any(target in board.stars for target in targets):
            text = t.gettext("Piece %(piece)s (%(where)s) may step to: %(fields)s (a step onto a star draws a "
                             "command card).", **values)
        else:
            text = t.gettext("Piece %(piece)s (%(where)s) may step to: %(fields)s.", **values)
        lines += wrap(text, Mark.BULLET)
    for piece, stars in lands.items():
        lines += wrap(t.ngettext("Piece %(piece)s may land on the free star %(stars)s.",
                                 "Piece %(piece)s may land on the free stars %(stars)s.", len(stars), piece=piece,
                                 stars=join(t, stars, "or")), Mark.BULLET)
    for piece, stars in jumps.items():
        lines += wrap(t.ngettext("Piece %(piece)s (%(where)s) may jump to the free star %(stars)s.",
                                 "Piece %(piece)s (%(where)s) may jump to the free stars %(stars)s.", len(stars),
                                 piece=piece, where=board.where_piece(me, int(piece)), stars=join(t, stars, "or")),
                      Mark.BULLET)
    if recalls:
        lines += wrap(t.gettext("Recall goes to piece %(pieces)s.", pieces=join(
            t, [f"{p} ({board.where_piece(me, int(p))})" for p in recalls], "or")), Mark.BULLET)
    if transports:
        lines += wrap(t.gettext("Transport +2 may go on piece %(pieces)s before it moves.",
                                pieces=join(t, transports, "or")), Mark.BULLET)
    for piece in rolls:
        number = int(piece)
        where = view["pieces"][me][number - 1]["field"]
        lines += wrap(t.gettext("Roll for piece %(piece)s (%(where)s; around it %(ring)s).", piece=piece,
                                where=board.where_piece(me, number), ring=board.ring_count(*where)), Mark.BULLET)
    if "take" in words:
        pending = view.get("pending") or {}
        options = [tuple(f) for f in pending.get("fields", [])]
        lines += wrap(t.gettext("The roll for piece %(piece)s may act on these fields around it (a free one becomes "
                                "yours, the opponent's becomes free): %(fields)s.", piece=pending.get("piece"),
                                fields=board.grouped(options)), Mark.BULLET)
    if removes:
        lines += wrap(t.gettext("Markers you may remove: %(fields)s.", fields=board.grouped(removes)), Mark.BULLET)
    for card in sorted({card for card, _ in conquests}):
        stars = [star for c, star in conquests if c == card]
        detail = []
        for star in stars:
            mine = sum(1 for w in board.ring(*star) if board.owner.get(w) == me)
            others = board.grouped([w for w in board.ring(*star) if board.owner.get(w) != me])
            text = t.ngettext("%(star)s (you hold %(num)d): %(fields)s", "%(star)s (you hold %(num)d): %(fields)s",
                              mine, star=field(*star), fields=others) if mine else f"{field(*star)}: {others}"
            detail += wrap(text, Mark.SUB)
        if len(lines) + len(detail) + 1 > budget - 2:  # too long: how many fields each star has left to take
            counts = [f"{field(*star)} ({board.ring_count(*star)})" for star in stars]
            detail = wrap(join(t, counts), Mark.SUB)
        lines += wrap(t.gettext("%(card)s around the star:", card=card_name(card)), Mark.BULLET) + detail
    if proposals:
        lines += wrap(t.gettext("You may propose to play in %(modes)s mode.",
                                modes=join(t, [mode_word(t, m) for m in proposals], "or")),
                      Mark.BULLET)
    also = [t.gettext(OTHERS[w]) for w in OTHERS if w in words]
    if also:
        lines += wrap(t.gettext("Or you may %(choices)s.", choices=join(t, also, "or")) if lines
                      else t.gettext("You may %(choices)s.", choices=join(t, also, "or")), Mark.BULLET)
    return [t.gettext("Your choices:")] + lines if lines else []


def stars_surrounded(view: dict, reader: Reader) -> list[str]:
    """The stars that count in the fewest lines: who surrounds which, and which nobody surrounds yet (who holds
    the fields around them is in the fields held)."""
    t = reader.texts
    by: dict[int, list[str]] = {}
    open_stars = []
    for star in view["stars"]:
        if star["counts"] and star["surrounded_by"] is not None:
            by.setdefault(star["surrounded_by"], []).append(field(star["q"], star["r"]))
        elif star["counts"]:
            open_stars.append(field(star["q"], star["r"]))
    said = []
    if by:
        groups = [t.gettext("%(stars)s by %(who)s", stars=join(t, found), who=reader.who(p)) for p, found in by.items()]
        said.append(t.gettext("Stars surrounded: %(stars)s.", stars="; ".join(groups)))
    if open_stars:
        said.append(t.gettext("Stars nobody surrounds yet: %(stars)s.", stars=join(t, open_stars)))
    return wrap(" ".join(said)) if said else []


def star_lines(view: dict, board: Board, reader: Reader, short: bool = False) -> list[str]:
    """Each star that counts: surrounded by whom, or who holds the fields around it; a bullet each, or
    (`short`) all in one paragraph."""
    t = reader.texts
    lines = [t.gettext("Around the stars that count:") if any(not s["counts"] for s in view["stars"])
             else t.gettext("Around the stars:")]
    said, untouched = [], []
    for star in view["stars"]:
        if not star["counts"]:
            continue
        q, r = star["q"], star["r"]
        if star["surrounded_by"] is not None:
            said.append(t.gettext("%(star)s: surrounded by %(who)s", star=field(q, r),
                                  who=reader.who(star["surrounded_by"])))
        elif any(board.owner.get(w) is not None for w in board.ring(q, r)):
            said.append(f"{field(q, r)}: {board.ring_count(q, r)}")
        else:
            untouched.append(field(q, r))
    nobody = t.gettext("Nobody around %(stars)s.", stars=join(t, untouched)) if untouched else ""
    if short:
        return lines + wrap(" ".join(([f"{'; '.join(said)}."] if said else []) + ([nobody] if nobody else [])))
    lines += [line for text in said for line in wrap(text, Mark.BULLET)]
    return lines + (wrap(nobody, Mark.BULLET) if nobody else [])


def territory_lines(board: Board, reader: Reader) -> list[str]:
    t = reader.texts
    lines = []
    for p in reader.players():
        runs = board.territory(p)
        if runs:
            lines += wrap(t.gettext("You hold %(fields)s.", fields="; ".join(runs)) if p == reader.seat
                          else t.gettext("%(name)s holds %(fields)s.", name=reader.name(p), fields="; ".join(runs)),
                          Mark.BULLET)
    return ([t.gettext("The fields held, row by row:")] + lines) if lines else []


# --- the whole text -----------------------------------------------------------------------


def parts(view: dict, reader: Reader) -> Parts:
    """Head, standing, changes, and the board part as a function of its line budget."""
    t = reader.texts
    board = Board(view, reader)
    over = view.get("phase") == "over" or view.get("to_move") is None
    result = view.get("result") or {}
    rounds = sum(view["rounds"])
    if over:
        head = wrap(t.ngettext("Tapaono, after %(num)d round. The game is over. %(reason)s",
                               "Tapaono, after %(num)d rounds. The game is over. %(reason)s", rounds,
                               reason=result.get("reason", "")))
    else:
        head = wrap(t.gettext("Tapaono, round %(round)s.", round=rounds) + " "
                    + headline(reader, view["to_move"], decision(view, reader)))
    head += wrap(mode_sentence(t, view))
    unit = Unit.STAR if view["goal"] else Unit.FIELD
    details = {}
    for p in reader.players():
        facts = []
        if view["goal"]:
            facts.append(t.ngettext("%(num)d field on the board", "%(num)d fields on the board",
                                    view["markers_on_board"][p]))
        facts.append(t.ngettext("%(num)d marker in stock", "%(num)d markers in stock", view["markers_left"][p]))
        pieces = [f"{piece['piece']} {board.where_piece(p, piece['piece'])}" for piece in view["pieces"][p]]
        facts.append(t.gettext("pieces %(pieces)s", pieces=join(t, pieces)))
        depot = [card_name(c) for c in view["depots"][p]]
        facts.append(t.gettext("in the depot %(cards)s", cards=join(t, depot)) if depot
                     else t.gettext("nothing in the depot"))
        details[p] = ", ".join(facts[:-2]) + "; " + "; ".join(facts[-2:])
    lines = standing(reader, view["scores"], details, unit, over=over, ranks=result.get("ranks"))
    if view.get("in_use") and not over:
        lines += wrap(t.gettext("Cards in use this round: %(cards)s.",
                                cards=join(t, [card_name(c) for c in view["in_use"]])))
    if view.get("discard") and not over:
        used = {c: view["discard"].count(c) for c in CARDS if c in view["discard"]}
        lines += wrap(t.gettext("Used cards: %(cards)s.", cards=", ".join(f"{n} {card_name(c)}"
                                                                          for c, n in used.items())))
    if view.get("proposal") and not over:
        proposal = view["proposal"]
        lines += wrap(t.gettext("%(who)s proposes to play in %(mode)s mode.", who=reader.who(proposal["by"]),
                                mode=mode_word(t, proposal["mode"])))
    if view.get("quiet_rounds", 0) >= QUIET_TOLD and not over:
        lines += wrap(t.gettext("%(rounds)s rounds in a row without a marker placed or removed; after %(limit)s the "
                                "game ends as it stands.", rounds=view["quiet_rounds"], limit=view["quiet_limit"]))
    moves = recent_moves(reader, view.get("last_move"))
    extra = []
    roll = view.get("last_roll")
    if roll:
        if roll.get("piece") and roll["seat"] == reader.seat:
            extra.append(t.gettext("the last roll was a %(value)s for your piece %(piece)s", value=roll["value"],
                                   piece=roll["piece"]))
        elif roll.get("piece"):
            extra.append(t.gettext("the last roll was a %(value)s for %(name)s's piece %(piece)s", value=roll["value"],
                                   name=reader.name(roll["seat"]), piece=roll["piece"]))
        else:
            extra.append(t.gettext("the last roll was a %(value)s for %(card)s", value=roll["value"],
                                   card=card_name(roll.get("card") or "")))
    drawn = view.get("drawn")
    if drawn:
        extra.append(t.gettext("the last card drawn was %(card)s (%(name)s)", card=card_name(drawn["card"]),
                               name=reader.name(drawn["seat"])))
    after = "; ".join(extra)

    def told(room: int) -> list[str]:
        return changes(reader, moves, lambda seat, notations: tell(seat, notations, board), room,
                       f"{after[:1].upper()}{after[1:]}." if after else "")

    # The stars and every field held are always told (issue 33 item 7): the stars in one paragraph when
    # a bullet each does not fit, and without the fields around them when that does not fit either.
    forms = [star_lines(view, board, reader), star_lines(view, board, reader, True), stars_surrounded(view, reader)]
    held = territory_lines(board, reader)
    least = len(choice_lines(view, board, reader, 0)) + len(forms[-1]) + len(held)

    def board_part(budget: int) -> list[str]:
        out = choice_lines(view, board, reader, budget - len(forms[-1]) - len(held))
        stars = next((form for form in forms if len(out) + len(form) + len(held) <= budget), forms[-1])
        return out + stars + held

    return Parts(head, lines, told, board_part, least)


_ROLL = re.compile(r"^roll (\d)$")


# --- Tapaono: cards drawn (face up), the dice -------------------------------------------------------------


def tell_since(move: dict, reader: Reader) -> tuple[list[str], str]:
    return tell_steps(move, reader,
                      lambda i, seat, notation, before, after: tell(seat, [notation], Board(after, reader)),
                      lambda seat, notation, before, after: _tapaono_chance(before, after, reader, notation)
                      + _consequences(before, after, reader, seat, notation))


def _tapaono_chance(before: dict, after: dict, reader: Reader, notation: str) -> list[str]:
    """The card drawn and the die rolled between two views."""
    t = reader.texts
    said = []
    roll = after.get("last_roll") or {}
    m = _ROLL.match(notation)
    if m and roll.get("piece") is not None and str(roll["piece"]) == m[1]:
        said.append(t.gettext("The die showed %(value)s for piece %(piece)s.", value=roll["value"],
                              piece=roll["piece"]))
    left_before, left_after = before.get("deck_size", 0), after.get("deck_size", 0)
    if left_after == left_before or not after.get("drawn"):
        return said
    if left_after > left_before:
        said.append(t.gettext("The used cards were shuffled into a new deck."))
    drawn = after["drawn"]
    said.append(did(reader, drawn["seat"], t.gettext("drew %(card)s", card=card_name(drawn["card"]))))
    if roll.get("card") == drawn["card"] and roll.get("seat") == drawn["seat"] and not roll.get("piece"):
        said.append(t.gettext("The die showed %(value)s for %(card)s.", value=roll["value"],
                              card=card_name(drawn["card"])))
    return said


def _consequences(before: dict, after: dict, reader: Reader, seat: int | None, notation: str) -> list[str]:
    """What a decision did that its own words do not say (issue 33 item 6, a): the fields that changed hands
    (a 6 takes every field around the piece and the one it stands on), the pieces sent back to the spawn
    or moved, the stars newly surrounded or no longer. Read from the two views alone, so only what the
    reader sees; the fields the notation names (take, remove, a conquest) and the piece it moves are told
    by the move's own words."""
    named = set(fields_in(notation))
    return (_fields_changed(before, after, reader, named) + _pieces_moved(before, after, reader, seat, notation)
            + _stars_changed(before, after, reader))


def _fields_changed(before: dict, after: dict, reader: Reader, named: set) -> list[str]:
    """'Fields that became Ann's: 3,-5 and 4,-5.' (or yours, or free), by who holds them now."""
    t = reader.texts
    was = {(q, r): owner for q, r, owner in before["fields"]}
    now: dict[int | None, list[str]] = {}
    for q, r, owner in after["fields"]:
        if was.get((q, r), owner) != owner and (q, r) not in named:
            now.setdefault(owner, []).append(field(q, r))
    said = []
    for owner, found in now.items():
        fields = some(t, found)
        if owner is None:
            said.append(t.gettext("Fields that became free: %(fields)s.", fields=fields))
        elif owner == reader.seat:
            said.append(t.gettext("Fields that became yours: %(fields)s.", fields=fields))
        else:
            said.append(t.gettext("Fields that became %(name)s's: %(fields)s.", fields=fields, name=reader.name(owner)))
    return said


def _pieces_moved(before: dict, after: dict, reader: Reader, mover: int | None, notation: str) -> list[str]:
    """The pieces that went back to the spawn or elsewhere without the move saying so (a 6, a conquered field
    under an opponent's piece, a piece that could not move)."""
    t = reader.texts
    m, p = _MOVE.match(notation), _PIECE.match(notation)
    said = []
    for owner, (old, new) in enumerate(zip(before["pieces"], after["pieces"])):
        for was, now in zip(old, new):
            if was["field"] == now["field"]:
                continue
            number = now["piece"]
            if owner == mover and ((m and int(m[2]) == number and now["field"] == [int(m[3]), int(m[4])])
                                   or (p and p[1] == "recall" and int(p[2]) == number)):
                continue  # the move's own words say it
            values = {"piece": number, "name": reader.name(owner)}
            if now["field"] is None:
                said.append(t.gettext("Your piece %(piece)s went back to the spawn.", **values) if owner == reader.seat
                            else t.gettext("%(name)s's piece %(piece)s went back to the spawn.", **values))
            else:
                values["field"] = field(*now["field"])
                said.append(t.gettext("Your piece %(piece)s went to %(field)s.", **values) if owner == reader.seat
                            else t.gettext("%(name)s's piece %(piece)s went to %(field)s.", **values))
    return said


def _stars_changed(before: dict, after: dict, reader: Reader) -> list[str]:
    """The stars that count and that a player now surrounds, or that nobody surrounds any more."""
    t = reader.texts
    said = []
    for old, new in zip(before["stars"], after["stars"]):
        if not new["counts"] or old["surrounded_by"] == new["surrounded_by"]:
            continue
        star = field(new["q"], new["r"])
        if new["surrounded_by"] is None:
            said.append(t.gettext("Nobody surrounds the star %(star)s any more.", star=star))
        elif new["surrounded_by"] == reader.seat:
            said.append(t.gettext("You now surround the star %(star)s.", star=star))
        else:
            said.append(t.gettext("%(who)s now surrounds the star %(star)s.", who=reader.who(new["surrounded_by"]),
                                  star=star))
    return said
