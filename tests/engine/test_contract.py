"""The generic contract suite: every registered game is checked by the same tests.

A game added to the registry is covered here without new code. Two kinds of runs:

- playouts: PBEM_PLAYOUTS (default 2,000; the everyday suite plays the first 250, the rest are
  marked `full`) seeded random games per player count and option preset; each must end within the game's bound and never reach a non-terminal state
  without a legal move, and every decision the engine made by itself (`apply_traced`) must
  have had exactly one legal move (issue 40);
- deep games: PBEM_DEEP_GAMES (default 12; the everyday suite plays the first three) seeded games
  per configuration, three to a test,
  in which every position is checked against the whole contract (JSON round trip, notation
  round trip, views free of hidden information, illegal moves refused without a trace,
  standing orders that round-trip and make only legal moves, replay).
"""

from __future__ import annotations

import json
import os
import random

import pytest

import engine
from engine.core import IllegalMove, Move, Order, OrderError, canonical_json, derive_seed
from tests.engine.rare_paths import RARE, paths_of

PLAYOUTS = int(os.environ.get("PBEM_PLAYOUTS", "2000"))
DEEP_GAMES = int(os.environ.get("PBEM_DEEP_GAMES", "12"))
CHUNK = 250
DEEP_CHUNK = 3  # deep games per test: the slowest titles' configurations spread over the suite's workers
# The everyday suite (`make test`) plays the first chunk of each: the first CHUNK playouts and DEEP_CHUNK
# deep games per configuration, and the first seed of each rare path beyond them (tests/engine/rare_paths.py).
# The rest are marked `full` and run by `make test-full` (and CI); docs/architecture.md has the measurement.
GARBAGE = ["", "   ", "xyzzy", "move", "\u00e9\u00e8\u2603", "1 2 3 4 5 6 7 8 9", "\x00\x01", "a" * 300,
           "place 99999,99999 45", "-", ",,,"]


def configurations():
    for name in engine.names():
        rules = engine.get(name)
        for players in range(rules.min_players, rules.max_players + 1):
            for preset in rules.option_presets():
                label = "-".join(f"{k}={v}" for k, v in sorted(preset.items())) or "default"
                yield pytest.param(name, players, preset, id=f"{name}-{players}p-{label}")


CONFIGS = list(configurations())


def game_seed(index: int) -> int:
    """A 128-bit seed, large enough that finding it in a view's text cannot be a coincidence."""
    return derive_seed(index, "contract")


def play_random(rules, players, options, seed_index, check=None, step=None):
    """Play one seeded random game; returns (final state, moves). `check` sees every position;
    `step(state, move)` plays a move instead of `rules.apply` (the same game, checked on the way)."""
    seed = game_seed(seed_index)
    chooser = random.Random(seed_index)
    state = rules.setup(players, options, seed)
    moves = []
    for _ in range(rules.max_decisions + 1):
        seat = rules.to_move(state)
        if seat is None:
            return state, moves, seed
        legal = rules.legal_moves(state)
        assert legal, f"seed {seed_index}: seat {seat} is to move but has no legal move (dead end)"
        if check:
            state = check(state, legal, seed)
        move = chooser.choice(legal)
        state = step(state, move) if step else rules.apply(state, move)
        moves.append(move)
    pytest.fail(f"seed {seed_index}: the game did not end within {rules.max_decisions} decisions")


def chunks(games: int, size: int) -> list:
    """Each configuration's games in tests of `size` games: (name, players, preset, first game). Every chunk
    but the first of a configuration is marked `full` (not in the everyday suite)."""
    out = []
    for config in CONFIGS:
        for start in range(0, games, size):
            name, players, preset = config.values
            out.append(pytest.param(name, players, preset, start, id=f"{config.id}-{start}",
                                    marks=[pytest.mark.full] if start else []))
    return out


@pytest.mark.parametrize("name,players,preset,start", chunks(PLAYOUTS, CHUNK))
def test_random_playouts_end_without_dead_end(name, players, preset, start):
    """Every game ends with a result; and (issue 40) the engine decided by itself only where one move was legal."""
    rules = engine.get(name)
    options = rules.check_options(preset)
    for index in range(start, min(start + CHUNK, PLAYOUTS)):
        state, moves, _ = play_random(rules, players, options, index, step=only_forced_decisions(rules, index))
        result = rules.result(state)
        assert result is not None, f"seed {index}: over but no result"
        assert len(result.scores) == players and len(result.ranks) == players
        assert min(result.ranks) == 1 and all(1 <= r <= players for r in result.ranks)
        assert result.reason


@pytest.mark.parametrize("config_id,index,path", RARE, ids=[f"{c}-{i}" for c, i, _ in RARE])
def test_rare_paths_every_day(config_id, index, path):
    """The first seed at which each rare path is reached (tests/engine/rare_paths.py) is played every day, with
    the playouts' checks, and still reaches that path."""
    config = next(c for c in CONFIGS if c.id == config_id)
    name, players, preset = config.values
    rules = engine.get(name)
    state, moves, _ = play_random(rules, players, rules.check_options(preset), index,
                                  step=only_forced_decisions(rules, index))
    assert rules.result(state) is not None
    assert path in paths_of(name, rules, state, moves), (
        f"seed {index} no longer reaches {path!r} in {config_id}: the games changed; find the seeds again with "
        "`python -m tests.engine.rare_paths` and update RARE")


VIEWED_GAMES = 25  # one game in 25 also compares the decisions traced with the view's auto events, at every move


def only_forced_decisions(rules, seed_index):
    """A `step` for play_random: the move by `apply_traced`, and every decision the engine made by itself on the
    way had exactly one legal choice (engine.core, `Rules.apply_traced`; issue 40). In one game of VIEWED_GAMES
    the view's `auto` events after each move are exactly those decisions (none made without being traced)."""
    viewed = seed_index % VIEWED_GAMES == 0

    def step(state, move):
        after, decisions = rules.apply_traced(state, move)
        where = f"seed {seed_index}, after {rules.notation(state, move)!r}"
        for position, only in decisions:
            # Read back from its JSON: a real position, and legal moves worked out afresh, not the engine loop's.
            position = rules.state_from_json(rules.state_to_json(position))
            legal = rules.legal_moves(position)
            assert legal == [only], (f"{where}: the engine played {rules.notation(position, only)!r} by itself "
                                     f"where the legal moves were {[rules.notation(position, m) for m in legal]}")
            assert rules.to_move(position) is not None
        if viewed:
            autos = [e["move"] for e in rules.view(after, None).get("events", []) if e.get("event") == "auto"]
            assert autos == [rules.notation(position, only) for position, only in decisions], where
        return after

    return step


def test_40_the_check_finds_a_decision_made_alone_among_several_moves():
    """The playouts' check fails for an engine that plays a move by itself where several were legal, even one
    that reports it as an auto event."""
    from engine.tongiaki.rules import TongiakiRules

    class DecidesAlone(TongiakiRules):
        def apply_traced(self, state, move):
            after, decisions = super().apply_traced(state, move)
            legal = self.legal_moves(after)
            if len(legal) < 2:
                return after, decisions
            again, more = super().apply_traced(after, legal[0])  # the first legal move, as if forced
            again.events = after.events + (("auto", after.seat, legal[0].kind, legal[0].args),) + again.events
            return again, decisions + [(after, legal[0])] + more

    rules = DecidesAlone()
    with pytest.raises(AssertionError, match="by itself where the legal moves were"):
        play_random(rules, 2, {}, 0, step=only_forced_decisions(rules, 0))

    class Untraced(TongiakiRules):  # decides alone where one move is legal, but does not say so
        def apply_traced(self, state, move):
            return self.apply(state, move), []

    rules = Untraced()
    with pytest.raises(AssertionError, match="seed 0, after"):
        play_random(rules, 2, {}, 0, step=only_forced_decisions(rules, 0))


def _mutations(move: Move):
    yield Move(move.kind + "x", move.args)
    yield Move(move.kind, move.args + (0,))
    if move.args:
        yield Move(move.kind, move.args[:-1])
    for i, arg in enumerate(move.args):
        for bad in _bad_values(arg):
            yield Move(move.kind, move.args[:i] + (bad,) + move.args[i + 1:])


def _bad_values(arg):
    if isinstance(arg, bool) or arg is None:
        return [1, "x"]
    if isinstance(arg, int):
        return [arg + 1, arg - 1, arg + 1000, "x"]
    if isinstance(arg, str):
        return [arg + "?", ""]
    if isinstance(arg, tuple):
        return [arg + (0,), tuple(reversed(arg)) + ("?",), ()]
    return []


def _check_position(rules, players):
    def check(state, legal, seed):
        before = rules.state_hash(state)
        seat = rules.to_move(state)
        # Stable and complete: the same list twice, no duplicates.
        assert rules.legal_moves(state) == legal
        assert len(set(legal)) == len(legal), "legal_moves lists a move twice"
        # Notation round-trips, is unambiguous, and tolerates case and extra spaces.
        texts = [rules.notation(state, m) for m in legal]
        assert len(set(t.lower() for t in texts)) == len(texts), f"two legal moves share a notation: {texts}"
        for move, text in zip(legal, texts):
            assert rules.parse(state, text) == move, f"parse(notation({move})) = parse({text!r}) != {move}"
            sloppy = "  " + text.upper().replace(" ", "   ") + " "
            assert rules.parse(state, sloppy) == move, f"{sloppy!r} should parse as {text!r}"
            assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move
        # Views: JSON-ready, never the seed, and blind to everything the viewer cannot see.
        for viewer in [None, *range(players)]:
            view = rules.view(state, viewer)
            text = canonical_json(view)
            assert f"{seed:x}" not in text and str(seed) not in text, "a view shows the seed"
            for k in (1, 2):
                other = rules.resample_hidden(state, viewer, derive_seed(seed, f"resample-{k}"))
                assert rules.view(other, viewer) == view, (
                    f"the view of seat {viewer} changes when only what it cannot see changes")
                if viewer == seat:
                    assert rules.legal_moves(other) == legal, "legal moves depend on hidden information"
        # Illegal moves and garbage are refused and change nothing.
        legal_set = set(legal)
        for move in legal[:6]:
            for bad in _mutations(move):
                if bad in legal_set:
                    continue
                with pytest.raises(IllegalMove) as error:
                    rules.apply(state, bad)
                assert str(error.value).strip(), "IllegalMove without a reason"
        for text in GARBAGE:
            try:
                parsed = rules.parse(state, text)
            except IllegalMove as error:
                assert str(error).strip()
            else:
                pytest.fail(f"garbage {text!r} parsed as {parsed}")
        _check_orders(rules, players, state, seat, legal, texts)
        assert rules.state_hash(state) == before, "a refused move or an order changed the state"
        # Applying returns a new state and leaves the old one untouched.
        after = rules.apply(state, legal[0])
        assert rules.state_hash(state) == before, "apply() changed the state it was given"
        # apply_traced is apply, with the decisions it made alone beside (issue 40).
        assert rules.state_hash(rules.apply_traced(state, legal[0])[0]) == rules.state_hash(after)
        # The state's JSON holds everything: play goes on from the decoded copy.
        data = json.loads(canonical_json(rules.state_to_json(state)))
        copy = rules.state_from_json(data)
        assert rules.state_hash(copy) == before
        assert rules.legal_moves(copy) == legal
        return copy

    return check


def _check_orders(rules, players, state, seat, legal, texts):
    """Standing orders: what the engine offers round-trips; an order only ever makes a legal move."""
    for order in rules.order_examples(state, seat):
        text = rules.order_notation(order)
        assert rules.parse_order(state, seat, text) == order, f"order {text!r} does not read back as itself"
        assert rules.parse_order(state, seat, "  " + text.upper() + " ") == order
        assert Order.from_json(json.loads(json.dumps(order.to_json()))) == order
        found = rules.order_move(state, seat, order)
        if found is not None:
            move, rest = found
            assert move in legal, f"order {text!r} made {move}, which is not legal"
            assert rest is None or Order.from_json(json.loads(json.dumps(rest.to_json()))) == rest
        for other in range(players):
            if other != seat:
                assert rules.order_move(state, other, order) is None, "an order moved for a seat not to move"
    # A legal move written as an order is refused or makes exactly that move now.
    for move, text in list(zip(legal, texts))[:4]:
        try:
            order = rules.parse_order(state, seat, text)
        except OrderError as error:
            assert str(error).strip()
            continue
        assert rules.parse_order(state, seat, rules.order_notation(order)) == order
        found = rules.order_move(state, seat, order)
        assert found is not None and found[0] == move, f"the order {text!r} does not make that move now"
        assert rules.queued_move(state, seat, [order])[0] == move
    for text in GARBAGE:
        with pytest.raises(OrderError) as error:
            rules.parse_order(state, seat, text)
        assert str(error.value).strip()
    for other in range(players):
        if other != seat:
            with pytest.raises(OrderError):
                rules.parse_order(state, other, texts[0])


@pytest.mark.parametrize("name,players,preset,start", chunks(DEEP_GAMES, DEEP_CHUNK))
def test_contract_at_every_position(name, players, preset, start):
    rules = engine.get(name)
    options = rules.check_options(preset)
    for index in range(start, min(start + DEEP_CHUNK, DEEP_GAMES)):
        index += 100_000  # other seeds than the playouts
        state, moves, seed = play_random(rules, players, options, index, _check_position(rules, players))
        # Replaying (seed, options, players, moves) gives the identical state.
        again = rules.replay(players, options, seed, moves)
        assert rules.state_hash(again) == rules.state_hash(state)
        # Moves round-trip through JSON, as the move log stores them.
        assert [Move.from_json(json.loads(json.dumps(m.to_json()))) for m in moves] == moves
        # Once over: a result, no legal move, and moves are refused.
        assert rules.result(state) is not None
        assert rules.legal_moves(state) == []
        with pytest.raises(IllegalMove):
            rules.apply(state, moves[-1])
        final = rules.view(state, None)
        json.dumps(final)


@pytest.mark.parametrize("name", engine.names())
def test_registry_and_description(name):
    rules = engine.get(name)
    assert rules.name == name and rules.title and rules.version
    assert engine.get(name.upper()) is rules
    described = rules.describe()
    json.dumps(described)
    assert rules.check_options({}) == {o.name: o.default for o in rules.options}
    with pytest.raises(engine.OptionError):
        rules.check_options({"no-such-option": 1})
    with pytest.raises(engine.OptionError):
        rules.check_players(rules.max_players + 1)


@pytest.mark.parametrize("name", engine.names())
def test_a_game_says_whether_it_takes_standing_orders(name):
    """`takes_orders` is what the service trusts before it reads a line as an order (issue 20); the order
    examples a seat is offered depend only on what it may see."""
    import random

    from engine.core import OrderError

    rules = engine.get(name)
    state = rules.setup(rules.min_players, rules.check_options({}), 11)
    chooser, offered, parsed = random.Random(5), [], 0
    for _ in range(300):
        seat = rules.to_move(state)
        if seat is None:
            break
        examples = rules.order_examples(state, seat)
        # They go into the seat's mails and pages: they must tell nothing the seat cannot see.
        assert examples == rules.order_examples(rules.resample_hidden(state, seat, 99), seat)
        offered += examples
        legal = rules.legal_moves(state)
        for move in legal[:3]:  # the text of a legal move, written as an order for later in the turn
            try:
                rules.parse_order(state, seat, rules.notation(state, move))
                parsed += 1
            except OrderError:
                pass
        state = rules.apply(state, chooser.choice(legal))
    if rules.takes_orders:
        assert offered or parsed, f"{name} takes orders but read none in a whole game"
    else:
        assert offered == []
        with pytest.raises(OrderError):
            rules.parse_order(state, 0, "anything")


def test_unknown_game_is_named_in_the_error():
    with pytest.raises(engine.UnknownGameError) as error:
        engine.get("chess")
    assert "chess" in str(error.value) and "counters" in str(error.value)


# ---------------------------------------------------------------------------------------
# Chosen colours (the reserved option `colours`): the seat's colour everywhere, and nothing else

COLOUR_GAMES = int(os.environ.get("PBEM_COLOUR_GAMES", "2"))
COLOUR_CONTRACT_EVERY = 4  # the whole contract at every fourth position of these games, colours at every one


def colour_configurations():
    for name in engine.names():
        rules = engine.get(name)
        for players in range(rules.min_players, rules.max_players + 1):
            yield pytest.param(name, players, id=f"{name}-{players}p")


def chosen_colours(rules, players: int, index: int) -> list[str]:
    """A seeded choice of distinct colours of the title, one per seat, never the default order."""
    colours = list(rules.colours)
    random.Random(f"{rules.name}/{players}/{index}").shuffle(colours)
    chosen = colours[:players]
    if chosen == list(rules.colours[:players]):
        chosen = chosen[1:] + chosen[:1]
    return chosen


def _words(text: str) -> set[str]:
    return set(text.lower().replace(",", " ").split())


@pytest.mark.parametrize("name,players", list(colour_configurations()))
def test_chosen_colours_are_the_seats_colours_everywhere(name, players):
    rules = engine.get(name)
    for index in range(COLOUR_GAMES):
        colours = chosen_colours(rules, players, index)
        rename = dict(zip(rules.colours[:players], colours))
        others = set(rules.colours) - set(colours)
        options = rules.check_options({"colours": colours})
        assert rules.seat_colours(players, options) == tuple(colours)
        contract = _check_position(rules, players)
        seen = []

        def check(state, legal, seed):
            seen.append(1)
            if len(seen) % COLOUR_CONTRACT_EVERY == 1:
                state = contract(state, legal, seed)  # the whole contract holds with chosen colours too
            for viewer in [None, *range(players)]:
                assert rules.view(state, viewer)["colours"] == colours, "the view does not name the chosen colours"
            for move in legal:
                text = rules.notation(state, move)
                assert not _words(text) & others, f"{text!r} names a colour nobody plays"
                for word in _words(text) & set(colours):  # the seat's default colour name is refused
                    default = rules.colours[colours.index(word)]
                    if default in others:
                        with pytest.raises(IllegalMove):
                            rules.parse(state, " ".join(default if w == word else w for w in text.split()))
            return state

        index += 200_000
        state, moves, seed = play_random(rules, players, options, index, check)
        assert rules.state_hash(rules.replay(players, options, seed, moves)) == rules.state_hash(state)
        # Colour is identity only: the same seed and choices play the same game as the default colours,
        # move for move, with each seat's colour name replaced.
        plain, plain_moves, _ = play_random(rules, players, rules.check_options({}), index)
        assert len(plain_moves) == len(moves)
        assert rules.result(plain).scores == rules.result(state).scores
        assert rules.result(plain).ranks == rules.result(state).ranks
        for a, b in zip(plain_moves, moves):
            assert a.kind == b.kind and tuple(rename.get(x, x) if isinstance(x, str) else x for x in a.args) == b.args


@pytest.mark.parametrize("name", engine.names())
def test_colours_option_is_checked(name):
    rules = engine.get(name)
    players = rules.min_players
    good = chosen_colours(rules, players, 0)
    assert rules.check_options({"colours": [c.upper() for c in good]})["colours"] == good
    assert "colours" not in rules.check_options({})
    assert rules.seat_colours(players, {}) == tuple(rules.colours[:players])
    for bad in (["black"] * players, [good[0]] * players, "red", [1, 2], good + ["no-such-colour"]):
        with pytest.raises(engine.OptionError):
            rules.check_options({"colours": bad})
    with pytest.raises(engine.OptionError):  # one colour per seat: not more, not fewer
        rules.setup(players, {"colours": list(rules.colours[:players])[:1]}, 1)
    if rules.max_players > players:
        with pytest.raises(engine.OptionError):
            rules.setup(players, {"colours": list(rules.colours[:players + 1])}, 1)
