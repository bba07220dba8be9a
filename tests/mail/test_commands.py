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
