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
effects (what decisions do), orders (standing orders), view, rules (the `RULES`). `TITLE` is the
game's entry in the registry (engine.registry); its rules pages ship in docs/ beside these modules
(docs/games/tapaono.md links there).
"""

from engine.core import Message
from engine.registry import Title

from .rules import RULES, TapaonoRules

TITLE = Title(
    RULES,
    blurb=Message("Two players race three pieces across a hex board of stars, conquering fields with the die and "
                  "command cards until one surrounds the stars it needs."),
    option_labels={
        "mode": Message("Game mode"),
        "mode_change": Message("Mode change allowed"),
        "stars_to_win": Message("Stars to surround to win"),
        "commands": Message("Command cards"),
        "counting_stars": Message("Stars that count"),
        "markers": Message("Field markers per player"),
        "deck_end": Message("Game ends with the deck"),
    },
    # The form shows a free-mode option only in the free mode, so its help leaves out the engine's "free mode:".
    option_help={
        "mode": Message("Game mode: normal (surround five stars), fast (until the deck runs out), absolute (until a "
                        "player runs out of markers) or free (set by the options below)"),
        "mode_change": Message("The players may agree to change the mode during the game"),
        "stars_to_win": Message("Stars to surround to win (0 = no star goal)"),
        "commands": Message("Play with command cards"),
        "counting_stars": Message("Which stars count: all, inner (the six around the centre) or outer (the other six)"),
        "markers": Message("Field markers per player"),
        "deck_end": Message("The game ends when the deck runs out (used cards leave the game)"),
    },
    rules_pages=__name__,
    picture="renderers.tapaono",
    text_board="renderers.text.tapaono",
)

__all__ = ["RULES", "TITLE", "TapaonoRules"]
