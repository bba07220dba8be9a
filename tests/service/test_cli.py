"""The `pbem` command, end to end on a SQLite file: the commands a newcomer types."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pbem import cli


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.delenv("PBEM_DATABASE_URL", raising=False)
    runner = CliRunner()

    def invoke(*args, ok=True):
        result = runner.invoke(cli.main, [str(a) for a in args], catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    invoke("db", "upgrade")
    return invoke


def test_help_names_every_command(run):
    text = run("--help").output
    for command in ("db", "game", "export", "import", "verify", "replay", "run"):
        assert command in text
    assert "move" in run("game", "--help").output


def test_a_game_from_create_to_verified_archive(run, tmp_path):
    assert "game 1 created" in run("game", "create", "counters", "--as", "ann@example.org", "--players", "2",
                                   "--option", "pile=5").output
    assert "the game has started" in run("game", "join", "1", "--as", "bob@example.org").output
    shown = json.loads(run("game", "show", "1", "--json").output)
    first = shown["seats"][shown["to_move"]]["name"]
    players = {"ann": "ann@example.org", "bob": "bob@example.org"}
    mover, other = (players[first], players["bob" if first == "ann" else "ann"])
    refused = run("game", "move", "1", "take", "4", "--as", mover, ok=False)
    assert refused.exit_code == 1 and "You can take 1 to 3" in refused.output
    assert "not your turn" in run("game", "move", "1", "take", "1", "--as", other, ok=False).output
    assert "Stale position" in run("game", "move", "1", "take", "1", "--as", mover, "--expect", "4", ok=False).output
    assert "move 1: take 3" in run("game", "move", "1", "TAKE", "3", "--as", mover).output
    assert "(game over)" in run("game", "move", "1", "take", "2", "--as", other).output
    assert "seed:" in run("game", "show", "1").output
    out = tmp_path / "game1.json"
    run("export", "1", "-o", out)
    assert "imported as game 2" in run("import", out).output
    assert "2 good, 0 with problems" in run("verify", "--all").output
    assert json.loads(run("replay", "2", "--at", "1").output)["board"]["pile"] == 2
    # A tampered archive is refused and named; nothing is stored.
    data = json.loads(out.read_text())
    data["moves"][1]["notation"] = "take 1"
    out.write_text(json.dumps(data))
    refused = run("import", out, ok=False)
    assert refused.exit_code == 1 and "Move 2" in refused.output
    assert "verified 2 game(s)" in run("verify", "--all").output


def test_usage_errors_are_explained(run):
    assert "name one GAME_ID or give --all" in run("verify", ok=False).output
    assert "There is no game 9" in run("game", "show", "9", ok=False).output
    assert "only finished games" in run("export", "9", ok=False).output or "no game 9" in run("export", "9", ok=False).output
    assert "options are NAME=VALUE" in run("game", "create", "counters", "--as", "a@b.c", "--option", "x",
                                           ok=False).output


def test_colours_are_chosen_with_create_and_join(run):
    assert "colours blue, green, orange, purple, red, yellow" in run("game", "titles").output
    created = run("game", "create", "tongiaki", "--as", "ann@example.org", "--players", "3", "--colour", "Purple")
    assert "game 1 created, you play purple" in created.output
    assert "joined game 1 as red" in run("game", "join", "1", "--as", "bob@example.org", "--color", "red").output
    shown = run("game", "show", "1").output
    assert "[purple]" in shown and "[red]" in shown and "free colours: blue, green, orange, yellow" in shown
    refused = run("game", "join", "1", "--as", "cat@example.org", "--colour", "red", ok=False)
    assert refused.exit_code == 1 and "Red is taken at game 1; the free colours are blue, green, orange, yellow." \
        in refused.output
    assert "the game has started" in run("game", "join", "1", "--as", "cat@example.org").output
    seats = json.loads(run("game", "show", "1", "--json").output)["seats"]
    colours = {seat["name"]: seat["colour"] for seat in seats}
    assert colours == {"ann": "purple", "bob": "red", "cat": "blue"}
