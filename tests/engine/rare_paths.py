"""The rare paths of the contract playouts, and the seeds at which each is first reached.

The everyday suite (`make test`) plays the first CHUNK playouts of each configuration; the full
run (`make test-full`, CI) all PBEM_PLAYOUTS. A path that random play reaches only rarely (a
chain that never ends, T16; a draw) may lie beyond the first chunk, so the everyday suite also
plays, from `RARE`, the first seed at which each such path is reached, and checks that it still
is. Find them again after an engine change (they move when the games do):

    .venv/bin/python -m tests.engine.rare_paths [GAMES] [TITLE,...]

prints, per configuration, each path with the first seed that reaches it and how many of GAMES
(default 2,000) do, and the `RARE` entries for the paths first reached at or after CHUNK.
"""

from __future__ import annotations

import sys

# (configuration id, first seed, path): the paths first reached at or after the first chunk,
# found by this module's scan of 2,000 playouts per configuration.
RARE: list[tuple[str, int, str]] = [
    ('tongiaki-2p-default', 992, 'islands removed (T16): 1'),  # 1 of 2,000
    ('tongiaki-3p-default', 537, 'islands removed (T16): 1'),  # 5 of 2,000
    ('tongiaki-4p-default', 784, 'islands removed (T16): 1'),  # 2 of 2,000
    ('tongiaki-5p-default', 1189, 'islands removed (T16): 1'),  # 3 of 2,000
    ('tongiaki-6p-default', 1644, 'islands removed (T16): 1'),  # 1 of 2,000
    ('tapaono-2p-mode=normal-mode_change=False', 294, 'end: Neither player has a marker left to conquer with: stars surrounded, then markers, decide. It is a draw.'),  # 6 of 2,000
    ('tapaono-2p-mode=absolute-mode_change=False', 426, 'end: The second player has no markers left: more conquered fields wins. It is a draw.'),  # 6 of 2,000
    ('tapaono-2p-mode=absolute-mode_change=False', 499, 'end: The first player has no markers left: more conquered fields wins. It is a draw.'),  # 4 of 2,000
    ('tapaono-2p-mode=absolute-mode_change=False', 593, 'end: Twenty rounds in a row passed without a marker placed or removed: the game ends as it stands. It is a draw.'),  # 13 of 2,000
    ('tapaono-2p-default', 255, 'end: The last command card was drawn and that round is over: more markers on the board wins. It is a draw.'),  # 2 of 2,000
    ('tapaono-2p-default', 1180, 'end: Both players have no markers left: more conquered fields wins.'),  # 3 of 2,000
]


def paths_of(name, rules, state, moves) -> set[str]:
    """The paths a finished game took: how it ended, the kinds of moves played, and for Tongiaki how
    many islands left the game in chains that could not end (T16)."""
    found = {"end: " + rules.result(state).reason} | {"move: " + move.kind for move in moves}
    if name == "tongiaki":
        removed = len(state.removed)
        found.add(f"islands removed (T16): {min(removed, 3)}{'+' if removed >= 3 else ''}")
    return found


def scan(games: int, titles: list[str] | None) -> None:
    from tests.engine.test_contract import CHUNK, CONFIGS, engine, play_random

    rare = []
    for config in CONFIGS:
        name, players, preset = config.values
        if titles and name not in titles:
            continue
        rules = engine.get(name)
        options = rules.check_options(preset)
        first: dict[str, int] = {}
        counts: dict[str, int] = {}
        for index in range(games):
            state, moves, _ = play_random(rules, players, options, index)
            for path in paths_of(name, rules, state, moves):
                first.setdefault(path, index)
                counts[path] = counts.get(path, 0) + 1
        for path in sorted(first):
            print(f"{config.id}: {path}: first at seed {first[path]}, {counts[path]} of {games}", flush=True)
            if first[path] >= CHUNK:
                rare.append((config.id, first[path], path))
    print("RARE = [")
    for entry in rare:
        print(f"    {entry!r},")
    print("]")


if __name__ == "__main__":
    scan(int(sys.argv[1]) if len(sys.argv) > 1 else 2000, sys.argv[2].split(",") if len(sys.argv) > 2 else None)
