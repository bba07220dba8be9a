"""Rules.command_word (issue 24): the English command a player's word of another language stands for,
which the mail reader uses to tell a move written in Dutch or German from prose."""

import importlib

import pytest

import engine

TITLES = ("tongiaki", "discovery", "tapaono")


@pytest.mark.parametrize("title", TITLES)
def test_every_alias_of_a_command_gives_its_english_command_and_english_gives_itself(title):
    rules = engine.get(title)
    actions = importlib.import_module(f"engine.{title}.aliases").ACTIONS
    for language in ("nl", "de", "fr"):
        for english, words in actions.of(language).items():
            assert rules.command_word(english) == english
            for word in words:
                assert rules.command_word(word) == english
                assert rules.command_word(word.upper()) == english
    assert rules.command_word("Thanks!") == "thanks!"  # prose stays prose
