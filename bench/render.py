"""Board pictures: milliseconds per PNG, PNG size, and render time over PNG-encode time, per game.

Usage: python bench/render.py [--game NAME] [--repeat N] [--samples DIR]
For each game, a seeded random game is played to its late stage (the last position before
the end, where the board is largest); the picture of that view is rendered N times. The
ratio compares the whole render (layout, drawing, encoding) with Pillow encoding the same
finished image alone: the floor no renderer can go below. Goals: ratio <= 2.0, <= 300 KB.
Prints `name: value unit` lines. With --samples DIR it also writes the sample pictures
that docs/renderers.md and the README show (docs/images/).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
import renderers  # noqa: E402
from renderers import common  # noqa: E402

PLAN = {"tongiaki": (4, {}), "discovery": (3, {}), "tapaono": (2, {"mode": "fast"})}


def late_view(name: str, players: int, options: dict, seed: int = 11) -> dict:
    """The view of the last position before the end of a seeded random game."""
    rules = engine.get(name)
    state = rules.setup(players, options, seed)
    rnd = random.Random(seed)
    previous = state
    for _ in range(5000):
        if rules.to_move(state) is None:
            break
        previous = state
        state = rules.apply(state, rnd.choice(rules.legal_moves(state)))
    return rules.view(previous, 0)


def positions(name: str, players: int, options: dict, seed: int) -> list:
    rules = engine.get(name)
    state = rules.setup(players, options, seed)
    rnd = random.Random(seed)
    out = [(state, "")]
    while rules.to_move(state) is not None and len(out) < 5000:
        move = rnd.choice(rules.legal_moves(state))
        text = rules.notation(state, move)
        state = rules.apply(state, move)
        out.append((state, text))
    return out


def write_samples(folder: Path) -> None:
    """Sample pictures of seeded games: a board mid-game per title, pending decisions, a short replay."""
    folder.mkdir(parents=True, exist_ok=True)
    tongiaki = positions("tongiaki", 4, {}, 11)
    rules = engine.get("tongiaki")
    wanted = {"emigrate": None, "tile": None, "land": None}
    for state, _ in tongiaki[10:]:
        pending = rules.view(state, None)["pending"] or {}
        if pending.get("decision") in wanted and wanted[pending["decision"]] is None:
            wanted[pending["decision"]] = state
    for decision, state in wanted.items():
        if state is not None:
            (folder / f"tongiaki-{decision}.png").write_bytes(renderers.render("tongiaki", rules.view(state, 0)))
    replay = [(rules.view(s, None), t) for s, t in tongiaki[:40]]
    (folder / "tongiaki-replay.gif").write_bytes(renderers.render_replay("tongiaki", replay))
    discovery = positions("discovery", 3, {}, 7)
    rules = engine.get("discovery")
    (folder / "discovery-mid.png").write_bytes(
        renderers.render("discovery", rules.view(discovery[len(discovery) // 2][0], 0)))
    double = positions("discovery", 2, {"double": True}, 5)
    state = double[40][0]
    (folder / "discovery-double-seat.png").write_bytes(
        renderers.render("discovery", rules.view(state, rules.to_move(state))))
    tapaono = positions("tapaono", 2, {"mode": "fast"}, 3)
    rules = engine.get("tapaono")
    (folder / "tapaono-mid.png").write_bytes(renderers.render("tapaono", rules.view(tapaono[len(tapaono) // 2][0], 0)))
    for path in sorted(folder.iterdir()):
        print(f"sample.{path.name}: {path.stat().st_size / 1024:.1f} KB")


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(PLAN))
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--samples", type=Path, help="also write sample pictures into this folder")
    args = parser.parse_args()
    if args.samples:
        write_samples(args.samples)
    for name in [args.game] if args.game else sorted(PLAN):
        if name not in engine.names():
            print(f"{name}: not registered")
            continue
        players, options = PLAN[name]
        view = late_view(name, players, options)
        png = renderers.render(name, view)
        image = renderers.draw(name, view)
        total = timed(lambda: renderers.render(name, view), args.repeat)
        encode = timed(lambda: common.to_png(image), args.repeat)
        print(f"{name}.render: {total * 1000:.1f} ms")
        print(f"{name}.encode_only: {encode * 1000:.1f} ms")
        print(f"{name}.ratio: {total / encode:.2f} x")
        print(f"{name}.png_size: {len(png) / 1024:.1f} KB")
        print(f"{name}.pixels: {image.width}x{image.height} px")


if __name__ == "__main__":
    main()
