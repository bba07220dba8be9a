"""The Tapaono view: what players, spectators and a board renderer see of a state.

Everything in Tapaono is open (board, pieces, stocks, depots, drawn cards, rolls) except
the order of the deck and the random state, which never appear here. The view of a move's
preview that stopped before a card or a roll (issue 31) has nobody to move and says what
comes next under `stopped_before`. The schema is documented in docs/games/tapaono.md; this
module does not decide anything about the rules.
"""

from __future__ import annotations

from engine.core import ROLL, STOPPED_BEFORE

from . import moves, turn
from .board import COMMANDS_PER_ROUND, DEPOT_SIZE, FIELDS, LABELS, PROVISIONAL, SPAWN_ENTRIES, STAR_RING, STARS, Card
from .state import COLOURS, SPAWN, Phase, State


def _xy(index: int):
    return None if index == SPAWN else list(FIELDS[index])


def _pending(st: State) -> dict | None:
    phase = st.phase
    if phase == Phase.OVER or st.chance is not None:
        return None
    data: dict = {"decision": Phase(phase).name.lower(), "seat": st.turn}
    if phase == Phase.MOVE:
        if st.moving >= 0:
            data.update(decision="continue", piece=st.moving + 1, steps_left=st.steps)
        data["must_move"] = [i + 1 for i in range(3) if turn.must_move(st, st.turn, i)]
    elif phase == Phase.CARD:
        kind = st.pending[0]
        names = {"keep": "keep-or-use", "landing": "landing", "jump": "star-jump", "recall": "recall",
                 "raid": "raid", "loss": "loss"}
        data["decision"] = names[kind]
        if kind == "keep":
            data["card"] = Card(st.pending[1]).label
        if kind in ("raid", "loss"):
            data["remaining"] = st.pending[1]
    elif phase == Phase.TAKE:
        pending = st.pending
        data["piece"] = pending[1] + 1
        if pending[0] == "six":
            data.update(roll=6, fields=[_xy(f) for f in pending[2]], exactly=st.stock[st.turn])
        else:
            data.update(roll=pending[2], fields=[_xy(f) for f in pending[3]], at_most=pending[2])
    elif phase == Phase.ANSWER:
        data["proposal"] = {"by": st.proposal[0], "mode": st.proposal[1]}
    return data


def _ring_owner(owner: bytes, star: int) -> int | None:
    a, b, c, d, e, f = STAR_RING[star]
    o = owner[a]
    return o - 1 if o and owner[b] == o and owner[c] == o and owner[d] == o and owner[e] == o and owner[f] == o \
        else None


_OWNER_OF = (None, 0, 1)


def make_view(st: State, scores: list, result) -> dict:
    """Everything both players and spectators may see (all information in Tapaono is open, except the deck)."""
    owner, pos, cfg = st.owner, st.pos, st.cfg
    fields = [[q, r, _OWNER_OF[o]] for (q, r), o in zip(FIELDS, owner)]
    mover = st.turn if st.phase != Phase.OVER else None  # whose round it is (in a stopped preview too)
    pieces = []
    for seat in (0, 1):
        mine = seat == mover
        pieces.append([{"piece": i + 1, "field": _xy(pos[seat * 3 + i]),
                        "moved": mine and bool(st.done >> i & 1), "rolled": mine and bool(st.rolled >> i & 1),
                        "transport": mine and bool(st.transport >> i & 1)} for i in range(3)])
    board = [owner.count(1), owner.count(2)]
    ring_owner = {s: _ring_owner(owner, s) for s in STARS}
    view = {
        "game": "tapaono",
        "colours": list(st.options.get("colours") or COLOURS),
        "provisional_data": PROVISIONAL,
        "mode": st.mode,
        "options": dict(st.options),
        "goal": cfg.goal,
        "phase": Phase(st.phase).name.lower(),
        "to_move": mover if st.chance is None else None,
        "rounds": list(st.rounds),
        "fields": fields,
        "stars": [{"q": FIELDS[s][0], "r": FIELDS[s][1], "counts": s in cfg.counting,
                   "surrounded_by": ring_owner[s]} for s in STARS],
        "pieces": pieces,
        "spawns": [{"entries": [list(FIELDS[f]) for f in SPAWN_ENTRIES[seat]],
                    "pieces": [i + 1 for i in range(3) if pos[seat * 3 + i] == SPAWN]} for seat in (0, 1)],
        "markers_left": list(st.stock),
        "markers_on_board": board,
        "markers_out": [st.supply - st.stock[s] - board[s] for s in (0, 1)],
        "stars_surrounded": [sum(1 for s in cfg.counting if ring_owner[s] == p) for p in (0, 1)],
        "depots": [[LABELS[c] for c in d] for d in st.depots],
        "depot_size": DEPOT_SIZE,
        "in_use": [LABELS[c] for c in st.held],
        "deck_size": len(st.deck),
        "discard": [LABELS[c] for c in st.used],
        "discard_reshuffled": cfg.recycle,
        "commands_played": st.commands,
        "commands_per_round": COMMANDS_PER_ROUND,
        "drawn": None if st.drawn is None else {"seat": st.drawn[0], "card": st.drawn[1]},
        "last_roll": None if st.last_roll is None else {
            "seat": st.last_roll[0], "piece": st.last_roll[1] or None, "value": st.last_roll[2],
            "card": st.last_roll[3]},
        "pending": _pending(st),
        "proposal": None if st.proposal is None else {"by": st.proposal[0], "mode": st.proposal[1]},
        "quiet_rounds": st.quiet,
        "quiet_limit": turn.QUIET_LIMIT,
        "scores": scores,
        "last_move": None if st.last is None else {"seat": st.last[0], "move": moves.notation(st.last[1])},
        "events": [{"event": "auto", "seat": seat, "move": moves.notation(move)} for seat, move in st.events],
        "result": None if result is None else result.to_json(),
    }
    if st.chance is not None:  # a preview stopped before a card is drawn or the die rolled (for which piece)
        view[STOPPED_BEFORE] = {"chance": st.chance[0], "seat": st.turn}
        if st.chance[0] == ROLL:
            view[STOPPED_BEFORE]["piece"] = st.chance[1]
    return view
