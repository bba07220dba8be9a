"""The engines' messages to players are message ids with parameters (issue 24).

- every place in engine/ that builds a message (IllegalMove, OrderError, OrderNotNeeded, OptionError, Message)
  passes an English message id, never a sentence formatted on the spot, and every literal id
  is one that `pybabel extract -F babel-engine.cfg` finds and that engine.pot holds;
- a corpus of refusals (mutated and garbage moves, texts and orders at positions of seeded
  random games of every title, bad options) gives only errors whose message id, and the ids
  of the clauses inside it, are in engine.pot, and the corpus reaches most of the catalogue;
- `str(error)` is still the English sentence players read before issue 24: reasons_golden.tsv
  holds, for one refusal of each message id, the text the engines gave then.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from babel.messages import extract, frontend
from babel.messages.pofile import read_po

import engine
from engine.core import IllegalMove, Listing, Message, OptionError, derive_seed
from engine.tapaono import rules as tapaono_rules
from engine.tongiaki import chain as tongiaki_chain

from .test_contract import GARBAGE, _mutations

ROOT = Path(__file__).resolve().parents[2]
TITLES = ("tongiaki", "discovery", "tapaono")
MARKERS = {"IllegalMove", "OrderError", "OrderNotNeeded", "OptionError", "Message"}
GOLDEN = Path(__file__).with_name("reasons_golden.tsv")
# Texts worth trying in each game besides mutations of the legal moves' notation.
EXTRA = {
    "tongiaki": ["land red red 1", "land red 9", "land 1 red", "land red", "place 7", "place 1 1", "emigrate NE NE",
                 "tile N N", "land blue 2 1 x", "expand", "expand Samoa", "expand Samoa 9", "emigrate Tonga 1",
                 "emigrate Tonga 1 xx", "land", "land pink Tonga 1", "tile", "tile Q N", "king", "king Atlantis",
                 "settle now", "vermeerderen Tonga 1", "expand Tonga 1 from", "expand Tonga 1 from Fiji",
                 "emigrate", "place 2 1 4", "land red blue", "emigreren Tonga 1 noord", "place Rapa Nui 1",
                 "expand Hawaii 1", "king Tonga", "land red Tonga 1", "emigrate Tonga 2 N", "tile Tonga N",
                 "land green yellow 1 2", "land 2 1"],
    "discovery": ["place 1,0", "place 1,0 45", "place 1,0 90", "place #5 1,0 90", "place #999 1,0 90",
                  "deploy", "deploy Q", "deploy N+E", "deploy sea", "deploy grassland", "remove", "remove 0,0",
                  "remove 0,0 E+W", "remove 5,5 N", "remove 0,0 Q", "pass", "pass now", "leggen 1,0 90",
                  "place 0,0 0", "place 0,1 0", "place 0,-1 0", "place 1,0 0", "place 1,0 180", "place -1,0 270",
                  "deploy mountain", "deploy lake", "deploy N", "deploy S", "deploy xyz", "remove 0,0 N"],
    "tapaono": ["move", "move 4 0,0", "move 1 99,99", "move 1 x", "move 1 0,0", "move 1 2,0", "roll", "roll 1 1",
                "roll all", "roll 4", "take", "take 1", "take 1 2,0", "take 1 -1,2 -1,2", "take 1 none", "take x",
                "take 1 0,1", "take 0,1", "remove", "remove 2,0", "remove 0,1", "play", "play x", "play raid",
                "play transport", "play transport 4", "play conquer-three", "play conquer-three 0,1",
                "play conquer-three 2,0", "play conquer-six 2,0", "play conquer-three 2,0 1,0 1,0", "propose",
                "propose slow", "propose fast", "accept", "decline", "keep", "use", "stop", "end", "skip",
                "recall 1", "jump 1 2,0", "land 1 2,0", "bewegen 1 0,0", "end now", "take 2 5,5"],
}


def catalogue_ids() -> set[str]:
    with (ROOT / "pbem" / "translations" / "engine.pot").open("rb") as f:
        return {m.id for m in read_po(f) if m.id}


def extracted_ids() -> set[str]:
    """The message ids engine/ marks, extracted the way `pybabel extract -F babel-engine.cfg` does."""
    with (ROOT / "babel-engine.cfg").open(encoding="utf-8") as f:
        method_map, options_map = frontend.parse_mapping_cfg(f)
    return {message for _, _, message, _, _ in
            extract.extract_from_dir(str(ROOT), method_map, options_map, keywords=extract.DEFAULT_KEYWORDS)}


def message_ids(message: Message) -> set[str]:
    """The id of a message and of every clause inside it."""
    found = {message.message_id}
    for value in message.params.values():
        items = value.items if isinstance(value, Listing) else (value,)
        for item in items:
            if isinstance(item, Message):
                found |= message_ids(item)
    return found


def refusals(seeds=range(1)):
    """(label, error) for a fixed corpus of refused moves, texts, orders and options (deterministic)."""
    for name in TITLES:
        rules = engine.get(name)
        for options in [{"x": 1}, {"colours": "red"}, {"colours": ["pink"]}, {"colours": ["red", "red"]},
                        {"colours": ["red"]}, {"colours": list(rules.colours) * 2},
                        *[{o.name: v} for o in rules.options for v in ("maybe", "x", True, -5, 10_000, "1")]]:
            yield from _attempt(f"{name} options {options}", lambda: rules.check_options(options))
        yield from _attempt(f"{name} players", lambda: rules.check_players(99))
        yield from _attempt(f"{name} colours", lambda: rules.seat_colours(2, {"colours": ["red", "blue", "green"]}))
        for players in (rules.min_players, rules.max_players):
            for preset in rules.option_presets():
                options = rules.check_options(preset)
                for seed_index in seeds:
                    yield from _positions(rules, name, players, preset, options, seed_index)


def _positions(rules, name, players, preset, options, seed_index):
    chooser = random.Random(seed_index)
    state = rules.setup(players, options, derive_seed(seed_index, "golden"))
    for step in range(400):
        seat = rules.to_move(state)
        if seat is None:
            break
        legal = rules.legal_moves(state)
        if step % 7 == 0:
            tag = f"{name} {players} {preset} {seed_index} {step}"
            for move in legal[:6]:
                for bad in _mutations(move):
                    if bad not in legal:
                        yield from _attempt(f"{tag} apply {bad!r}", lambda: rules.apply(state, bad))
            texts = list(GARBAGE) + EXTRA[name]
            for text in [rules.notation(state, m) for m in legal[:6]]:
                words = text.split()
                texts += [" ".join(words[:-1]), text + " x", text + " 2", text.replace("1", "9"),
                          " ".join(words[:1] + ["zz"] + words[2:]), text.replace(",", ";")]
            for text in texts:
                yield from _attempt(f"{tag} parse {text!r}", lambda: rules.parse(state, text))
                yield from _attempt(f"{tag} order {text!r}", lambda: rules.parse_order(state, seat, text))
                yield from _attempt(f"{tag} other {text!r}", lambda: rules.parse_order(state, (seat + 1) % players,
                                                                                        text))
            for order in rules.order_examples(state, seat):
                text = rules.order_notation(order)
                for variant in (text, text + " " + text.split()[-1], text.replace("1", "7"),
                                text.split()[0] + " zz " + " ".join(text.split()[1:])):
                    yield from _attempt(f"{tag} exorder {variant!r}", lambda: rules.parse_order(state, seat, variant))
        state = rules.apply(state, chooser.choice(legal))


def _attempt(label, action):
    try:
        action()
    except (IllegalMove, OptionError) as error:
        yield label, error


@pytest.fixture(scope="module")
def corpus():
    return list(refusals())


def test_every_message_is_marked_with_an_english_message_id_that_engine_pot_holds():
    """No reason is formatted on the spot (an f-string, % or format()): the id is what translators get."""
    in_catalogue, extracted = catalogue_ids(), extracted_ids()
    literal, problems = set(), []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                literal.add(first.value)
            elif first is None or isinstance(first, (ast.JoinedStr, ast.BinOp, ast.Constant)) or (
                    isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute)
                    and first.func.attr == "format"):
                problems.append(f"{where}: {node.func.id} needs a message id, not {ast.unparse(first or node)}")
    assert problems == []
    assert len(literal) > 150, "the engines mark far fewer messages than they have"
    assert sorted(literal - extracted) == [], "marked in engine/ but not extracted: check babel-engine.cfg"
    assert sorted(extracted - in_catalogue) == [], "extracted but not in engine.pot: run pybabel extract (docs/i18n.md)"


def test_every_refusal_carries_message_ids_from_engine_pot(corpus):
    in_catalogue = catalogue_ids()
    seen, problems = set(), []
    for label, error in corpus:
        assert isinstance(error.message, Message), label
        ids = message_ids(error.message)
        seen |= ids
        problems += [f"{label}: {i!r}" for i in sorted(ids - in_catalogue)]
        assert str(error) == str(error.message) and str(error).strip(), label
    assert problems[:10] == []
    # The corpus reaches nearly every message of a refusal (the rest need positions random play
    # rarely makes); the sentences that say why a game ended, and what a title's registry entry
    # says of it (issue 32: its blurb, its options' labels and help), are no refusals.
    refusals = in_catalogue - END_OF_GAME - TITLE_WORDS
    assert len(seen & refusals) >= 0.75 * len(refusals), sorted(refusals - seen)


# Why a game ended (Result.message): in the engine catalogue too, but no refusal's.
END_OF_GAME = {str(m.message_id) for m in (*tongiaki_chain.REASONS.values(), *tapaono_rules.END_REASONS.values(),
                                           *tapaono_rules.PLAYERS, tapaono_rules.BOTH_EMPTY)} | {
    "The last tile has been placed.", "Both players", "A player", "%(reason)s It is a draw."}
TITLE_WORDS = {m.message_id for entry in engine.entries()
               for m in (entry.blurb, *entry.option_labels.values(), *entry.option_help.values()) if m is not None}


def test_str_of_an_error_is_the_english_sentence_players_read_before(corpus):
    """reasons_golden.tsv: one refusal per message id and the exact text the engines gave before issue 24."""
    golden = dict(line.split("\t", 1) for line in GOLDEN.read_text(encoding="utf-8").splitlines())
    found = {label: str(error) for label, error in corpus if label in golden}
    assert len(golden) > 100
    assert found == golden


def test_an_error_names_its_message_id_and_params():
    rules = engine.get("discovery")
    state = rules.setup(2, {}, 7)
    state = rules.apply(state, rules.legal_moves(state)[0])
    with pytest.raises(IllegalMove) as error:
        rules.parse(state, "remove 5,5 N")
    assert error.value.message_id == "There is no tile at %(x)s,%(y)s."
    assert error.value.params == {"x": 5, "y": 5}
    assert str(error.value) == "There is no tile at 5,5."
    # An error made from another error's message keeps its id (an order that is a bad move).
    with pytest.raises(engine.OrderError) as order_error:
        engine.get("tongiaki").parse_order(engine.get("tongiaki").setup(2, {}, 1), 0, "expand Atlantis 1")
    assert order_error.value.message_id == "There is no island %(word)r; on the board: %(islands)s."
    assert str(order_error.value) == "There is no island 'atlantis'; on the board: Tonga."


def test_a_list_or_clause_inside_a_message_stays_a_message():
    message = engine.core.join_or(["move", "stop", "play"])
    assert str(message) == "move or stop or play"
    assert message_ids(message) == {"%(first)s or %(second)s"}
    assert engine.core.join_and(["#4"]) == "#4" and engine.core.join_or([]) == ""
    listing = Listing([Message("%(side)s sea", side="N"), Message("%(side)s grassland", side="E")])
    assert str(Message("(%(needs)s)", needs=listing)) == "(N sea, E grassland)"
