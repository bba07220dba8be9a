"""Reading the commands of a mail: the subject's command or bare move, and the lines of the body."""

from __future__ import annotations

import pytest

from pbem.mail import commands


@pytest.mark.parametrize("subject,command,move", [
    ("/games", "/games", None),
    ("Re: /board 12", "/board 12", None),
    ("Re: [pbem #1 Tongiaki] your turn (move 1) /move place Tonga 3", "/move place Tonga 3", None),
    ("AW: Re: [pbem #1 Tongiaki] your turn (move 4)", None, None),
    ("Re: [pbem #1 Tongiaki] your turn (move 4) place Tonga 3", None, "place Tonga 3"),
    ("Re: place Tonga 3", None, "place Tonga 3"),
    ("place Tonga 3", None, "place Tonga 3"),
    ("Re: [pbem #1 Counters] reminder: your move by 2026-11-23T10:00:00Z", None, None),
    ("Re: [pbem #1 Counters] your mail", None, None),
    ("Re: [pbem #1 Counters] Bea is late", None, None),
    ("Re: [pbem] please confirm your commands", None, None),
    ("Re: a question about /notify", "/notify", "a question about /notify"),  # read, and refused with the form
    ("", None, None),
])
def test_the_subject_gives_a_command_anywhere_after_the_original_or_a_bare_move(subject, command, move):
    assert commands.subject_command(subject) == command
    assert commands.subject_move(subject) == move


def test_a_command_found_in_the_subject_is_read_before_the_body():
    assert commands.lines_of("Re: [pbem #3 Counters] your turn (move 2) /board", "take 1\n\n  Thanks!  \n") == [
        "/board", "take 1", "Thanks!"]


def test_the_first_word_is_the_verb():
    assert commands.first_word("  Place Tonga 3") == "place" and commands.first_word("") == ""


# --------------------------------------------------------------------------------------
# Issue 32: a command is one module, found by the registry


def test_32_every_command_is_one_module_of_the_package_with_its_spec():
    import importlib
    import pkgutil

    modules = {m.name for m in pkgutil.iter_modules(commands.__path__)}
    assert modules == set(commands.registry())
    for name in modules:
        spec = importlib.import_module(f"pbem.mail.commands.{name}").COMMAND
        assert spec.name == name and spec.doors <= {commands.TURN, commands.ACCOUNT} and callable(spec.run)


def test_32_a_thread_that_asks_while_the_registry_is_being_found_gets_every_command(monkeypatch):
    """The listener and the workers read mail in threads: the first two to ask both get the whole registry
    (one that got it half-found answered "There is no command /new" in the soak)."""
    import importlib
    import threading
    import time

    everything = dict(commands.registry())
    monkeypatch.setattr(commands, "_REGISTRY", {})
    monkeypatch.setattr(commands, "_FOUND", threading.Event(), raising=False)
    real_import = importlib.import_module

    def slow_import(name, *args):
        time.sleep(0.01)  # a module that takes a while to import, as on a busy machine
        return real_import(name, *args)

    monkeypatch.setattr(importlib, "import_module", slow_import)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(set(commands.registry()))) for _ in range(4)]
    for thread in threads:
        thread.start()
        time.sleep(0.02)
    for thread in threads:
        thread.join()
    assert seen == [set(everything)] * 4


@pytest.fixture
def ping():
    """A command of one module's worth, registered for the test: /ping GAME-ID answers 'pong'."""
    from pbem.i18n import N_

    def run(context, command):
        context.say(f"pong {command.game_id}")

    spec = commands.register(commands.Spec("ping", 125, run, doors=frozenset({commands.TURN, commands.ACCOUNT}),
                                           needs_game=True, usage=N_("/ping GAME-ID"), help=N_("a pong")))
    yield spec
    commands.unregister("ping")


@pytest.mark.parametrize("language", ["en", "nl", "de", "fr"])
def test_32_a_command_registered_in_one_module_is_in_help_in_every_language(ping, language):
    lines = commands.help_lines(language)
    row = next(line for line in lines if line.startswith("  /ping GAME-ID"))
    assert row.endswith("a pong") and len(row) - len("a pong") == commands.HELP_COLUMN
    assert lines.index(row) == lines.index(next(line for line in lines if line.startswith("  /help"))) - 1


def test_32_a_registered_command_is_read_and_run_at_both_doors(ping, db, settings):
    from tests.mail.conftest import command_address, compose, counters_game, deliver_all, mail_text, receive, reply_to

    game_id, by_seat = counters_game(db)
    turn = deliver_all(db, settings)[0]
    alice = by_seat[0]
    assert commands.subject_command("Re: hello /ping 4") == "/ping 4"
    through_key = receive(db, settings, compose(alice, reply_to(turn), "/ping"))
    by_command_key = receive(db, settings, compose(alice, command_address(db, settings, alice), f"/ping {game_id}"))
    assert through_key.outcome == by_command_key.outcome == "done"
    answers = [mail_text(m) for m in deliver_all(db, settings) if str(m["To"]) == alice]
    assert sum(f"pong {game_id}" in text for text in answers) == 2
