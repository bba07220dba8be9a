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

from engine.tapaono.board import DIRECTIONS

from renderers.i18n import N_, Texts
from renderers.text.base import (
    LISTED, Mark, Parts, Reader, Unit, changes, headline, join, recent_moves, some, standing, wrap,
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
            parts.append(t.gettext("proposed to change the mode to %(mode)s", mode=c[1]))
        elif text in ANSWERED:
            parts.append(t.gettext(ANSWERED[text]))
        elif text in DONE:
            parts.append(t.gettext(DONE[text]))
        elif text != "end":
            parts.append(t.gettext("played %(move)s", move=text))
    flush()
    return "; ".join(parts) or t.gettext("ended the phase")


# --- the decision now -----------------------------------------------------------------------


SAID = {  # decisions whose words need nothing from the view
    "landing": N_("Landing: put a piece from the spawn on a free star, or skip"),
    "star-jump": N_("Star jump: move a piece from a star to another free star, or skip"),
    "recall": N_("Recall: a piece on a star goes back to the spawn"),
    "dice": N_("roll the die for a piece, or end the dice phase"),
    "conquest": N_("play a conquest card, propose a change of mode, or end the round"),
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
                         mode=proposal.get("mode"))
    if kind == "move":
        owing = [str(p) for p in pending["must_move"]]
        if len(owing) == 1:
            return t.gettext("move piece %(piece)s one field", piece=owing[0])
        return t.gettext("move pieces %(pieces)s one field each", pieces=join(t, owing)) if owing \
            else t.gettext("move the pieces")
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
    mode = t.gettext(MODES[view["mode"]]) if view["mode"] in MODES else view["mode"].capitalize()
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
        lines += wrap(t.gettext("You may propose to play in %(modes)s mode.", modes=join(t, proposals, "or")),
                      Mark.BULLET)
    also = [t.gettext(OTHERS[w]) for w in OTHERS if w in words]
    if also:
        lines += wrap(t.gettext("Or you may %(choices)s.", choices=join(t, also, "or")) if lines
                      else t.gettext("You may %(choices)s.", choices=join(t, also, "or")), Mark.BULLET)
    return [t.gettext("Your choices:")] + lines if lines else []


def star_lines(view: dict, board: Board, reader: Reader) -> list[str]:
    """Each star that counts: surrounded by whom, or who holds the fields around it."""
    t = reader.texts
    lines = [t.gettext("Around the stars that count:") if any(not s["counts"] for s in view["stars"])
             else t.gettext("Around the stars:")]
    untouched = []
    for star in view["stars"]:
        if not star["counts"]:
            continue
        q, r = star["q"], star["r"]
        if star["surrounded_by"] is not None:
            lines += wrap(t.gettext("%(star)s: surrounded by %(who)s", star=field(q, r),
                                    who=reader.who(star["surrounded_by"])), Mark.BULLET)
        elif any(board.owner.get(w) is not None for w in board.ring(q, r)):
            lines += wrap(f"{field(q, r)}: {board.ring_count(q, r)}", Mark.BULLET)
        else:
            untouched.append(field(q, r))
    if untouched:
        lines += wrap(t.gettext("Nobody around %(stars)s.", stars=join(t, untouched)), Mark.BULLET)
    return lines


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
    if view.get("proposal") and not over:
        proposal = view["proposal"]
        lines += wrap(t.gettext("%(who)s proposes to play in %(mode)s mode.", who=reader.who(proposal["by"]),
                                mode=proposal["mode"]))
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

    def board_part(budget: int) -> list[str]:
        out = choice_lines(view, board, reader, budget)
        for block in (star_lines(view, board, reader), territory_lines(board, reader)):
            if len(out) + len(block) <= budget:
                out += block
        return out

    return Parts(head, lines, told, board_part)
