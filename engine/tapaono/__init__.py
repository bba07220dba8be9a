"""Tapaono (Henning Köhler, 2016): the rules engine for two players, in all four modes.

Rule vocabulary (one English name per rulebook term):

- field: one of the 151 hexagons, addressed `q,r` (axial coordinates);
- star: one of the 12 fields that can never be conquered; entering one draws a command card;
- marker: a field marker; a field with your marker is conquered by you, a field without
  one is free; markers taken off the board leave the game for good;
- stock: your markers not yet on the board ("markers left");
- piece: one of your three playing pieces (1, 2, 3);
- spawn: your place off the board where pieces start and go back to;
- command card (card): transport, conquer-six, conquer-three, raid, loss, landing,
  star-jump, recall; drawn face up;
- depot: your open row of at most five kept cards;
- conquer: put your marker on a field; free: take the opponent's marker off a field;
- round: one player's turn, in four phases: move, commands, dice, conquest by command;
- mode: normal, fast, absolute or free; a mode change is proposed and accepted or declined.

The package is pure rules (standard library only, no I/O, no clock, no global random).
Board and deck are provisional data (board.py). Modules, each importing only those before
it: board (data), state (the state and its JSON), moves (notation), turn (legal decisions),
effects (what decisions do), orders (standing orders), view, rules (the registered `RULES`).
"""

from .rules import RULES, TapaonoRules

__all__ = ["RULES", "TapaonoRules"]
