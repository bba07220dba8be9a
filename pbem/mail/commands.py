"""The commands a mail may carry, read line by line.

`/new GAME [players=N] [colour=C] [NAME=VALUE ...]`, `/join GAME-ID [COLOUR]`, `/start GAME-ID`,
`/move GAME-ID NOTATION`, `/board GAME-ID`, `/moves GAME-ID`, `/resign GAME-ID`, `/orders GAME-ID`,
`/cancel GAME-ID` (standing orders),
`/games`, `/help`, and for the player's own account `/confirm CODE`,
`/notify every|turn|digest|none|resume`, `/fromcheck on|off`, `/newkeys`, `/language en|nl|de|fr`. In a reply to a
turn mail the game id may be left out and a line without a slash is a move in the game's
notation. The subject may carry one command: a "/" command anywhere after the original
subject, or (in a reply to a turn mail) a bare move in place of our subject's text.
What a command may do through which key is decided by pbem.mail.inbound (docs/security.md);
here the lines are only read. The commands are English in every language (a German player
writes /help too); what is said about them (the help, the reasons a line is refused) is
translated where the answer is written (`CommandError.text(language)`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pbem import i18n
from pbem.i18n import N_
from pbem.notify import texts
from pbem.reasons import Refusal

MAX_LINES = 20  # lines read from one mail; the rest are counted as not read
NAMES = ("new", "join", "start", "move", "board", "moves", "resign", "games", "help", "confirm", "notify",
         "fromcheck", "newkeys", "orders", "cancel", "language")
NEEDS_GAME = ("join", "start", "move", "board", "moves", "resign", "orders", "cancel")
# Commands that change the account or a table: never through a turn key, and without a key only
# after the confirm-by-reply round trip.
ACCOUNT_CHANGES = ("new", "join", "start", "notify", "fromcheck", "newkeys", "cancel", "language")
# What a turn key authorises besides the moves: that seat's commands about that game at that turn.
TURN_COMMANDS = ("move", "board", "moves", "resign", "help", "orders", "cancel")
NOTIFY_CHOICES = ("every", "turn", "digest", "none", "resume")
_PREFIX = re.compile(r"^\s*((re|aw|sv|fw|fwd|wg|tr|antw)\s*(\[\d+\])?\s*:\s*|\[pbem[^\]]*\]\s*)+", re.I)
_SUBJECT_COMMAND = re.compile(r"(?:^|\s)(/(?:%s)\b.*)$" % "|".join(NAMES), re.I)
# What the values in our own subjects (pbem.notify.texts.SUBJECTS) look like, to find them in a reply's
# subject: a move number, a deadline (English: 2026-11-23T10:00:00Z; the others end in " UTC"), a name.
_SUBJECT_VALUES = {"move": r"\d+", "deadline": r"(?:.{1,60}? UTC|\S+)", "name": r".{1,80}"}
_GAME_ID = re.compile(r"^#?(\d{1,12})$")

HELP = N_("""Commands (one per line, in the body or the subject, each with its "/"):
  /new GAME [players=N] [colour=C] [NAME=VALUE ...]
                                           open a table (games: %(titles)s), in colour C if you like
  /join GAME-ID [COLOUR]                   take a seat, in a free colour if you like (or colour=C);
                                           the game starts when it is full
  /start GAME-ID                           start your table before it is full
  /board GAME-ID                           the board as you see it
  /moves GAME-ID                           your legal moves, when it is your turn
  /orders GAME-ID                          your standing orders there (only you see them)
  /cancel GAME-ID                          drop your standing orders there
  /games                                   your games
  /notify every|turn|digest|none           which mails you get (/notify resume: mail again
                                           after bounces stopped it)
  /fromcheck on|off                        accept moves from other addresses of yours
  /newkeys                                 new reply and command addresses (the old ones stop working)
  /language en|nl|de|fr                    the language of your pages and mails (English, Nederlands,
                                           Deutsch, Français)
  /help                                    this text
Send commands to your command address (at the foot of every mail from pbem), from your own
address. To move, reply to your turn mail with the move on the first line (the game id is
not needed there); several decisions of one turn may stand on several lines, and reading
stops at the first line that is no move or command ("Thanks!"). Replies to a turn mail also
take /move NOTATION, /board, /moves, /orders, /cancel and /resign, for that game and that turn
only. A line that is no move yet but a choice for later in your turn ("take 1 -1,2 0,2" after a
roll still to come, "roll all") is kept as a standing order: the game's page of rules lists them.""")


class CommandError(Refusal):
    """A line that is no command we know, or a command written wrongly; the message says how to write it.

    Raised with an English message marked for the catalogues (`N_`) and its named values
    (`pbem.reasons.Refusal`); `str(error)` is the English, `text(language)` the message in a
    reader's language.
    """


@dataclass(frozen=True)
class Command:
    name: str  # one of NAMES, or "play" for a bare move in a reply
    args: tuple[str, ...]
    line: str
    game_id: int | None = None


def subject_command(subject: str | None) -> str | None:
    """The "/" command in a subject line, if it carries one: after "Re:" and our subject, or alone."""
    text = _PREFIX.sub("", subject or "").strip()
    if text.startswith("/"):
        return text
    found = _SUBJECT_COMMAND.search(text)
    return found[1].strip() if found else None


@lru_cache(maxsize=1)
def _our_subjects() -> re.Pattern:
    """The texts of our own subjects (pbem.notify.texts.SUBJECTS) in every language, which a reply
    repeats after "Re:"; and the bare "your turn" of older mails."""
    forms = []
    for language in i18n.LANGUAGES:
        for message in texts.SUBJECTS.values():
            parts = re.split(r"%\((\w+)\)[sd]", i18n.texts(language).gettext(message))
            forms.append("".join(_SUBJECT_VALUES[part] if odd else re.escape(part)
                                 for odd, part in zip([False, True] * len(parts), parts)))
    forms.append("your turn")  # after the forms with a move number: those are tried first
    return re.compile(r"^(?:%s)(?:\s|$)" % "|".join(dict.fromkeys(forms)), re.I)


def subject_move(subject: str | None) -> str | None:
    """What a reply's subject says besides "Re:" and our own subject's text: a bare move, maybe."""
    text = _our_subjects().sub("", _PREFIX.sub("", subject or "").strip(), count=1).strip()
    return text if text and not text.startswith("/") else None


def first_word(line: str) -> str:
    """The first word of a line, lowercased (the verb of a move in every game's notation)."""
    words = line.split(maxsplit=1)
    return words[0].lower() if words else ""


def lines_of(subject: str | None, body: str) -> list[str]:
    """The non-empty lines to read: a subject command first, then the body's lines."""
    lines = []
    command = subject_command(subject)
    if command:
        lines.append(command)
    lines += [line.strip() for line in body.split("\n") if line.strip()]
    return lines


def parse(line: str, reply_game: int | None) -> Command:
    """Read one line; `reply_game` is the game of the turn key, if the mail came through one
    (its game is then the default of the commands that name one, and a bare line is a move)."""
    if not line.startswith("/"):
        if reply_game is None:
            raise CommandError(N_("Commands start with '/'; to move, reply to your turn mail. "
                                  "Send /help for the list."))
        return Command("play", (line,), line, reply_game)
    words = line[1:].split()
    name = words[0].lower() if words else ""
    args = words[1:]
    if name not in NAMES:
        raise CommandError(N_("There is no command /%(name)s; send /help for the list."), name=name)
    game_id = None
    if name in NEEDS_GAME:
        match = _GAME_ID.match(args[0]) if args else None
        if match:
            game_id = int(match[1])
            args = args[1:]
        elif reply_game is not None:
            game_id = reply_game
        else:
            if name == "move":
                raise CommandError(N_("Write /move GAME-ID NOTATION."))
            raise CommandError(N_("Write /%(name)s GAME-ID."), name=name)
    if name == "move" and not args:
        raise CommandError(N_("Write /move GAME-ID NOTATION, for example /move 12 take 1."))
    if name == "new" and not args:
        raise CommandError(N_("Write /new GAME [players=N], for example /new tongiaki players=3."))
    if name == "confirm" and len(args) != 1:
        raise CommandError(N_("Write /confirm CODE with the code from the confirmation mail."))
    if name == "notify" and (len(args) != 1 or args[0].lower() not in NOTIFY_CHOICES):
        raise CommandError(N_("Write /notify every, /notify turn, /notify digest, /notify none or /notify resume."))
    if name == "fromcheck" and (len(args) != 1 or args[0].lower() not in ("on", "off")):
        raise CommandError(N_("Write /fromcheck on or /fromcheck off."))
    if name == "language" and len(args) != 1:
        raise CommandError(N_("Write /language en, /language nl, /language de or /language fr."))
    return Command(name, tuple(args), line, game_id)


def parse_join(args: tuple[str, ...]) -> str | None:
    """The colour of a /join command: `/join 12`, `/join 12 blue` or `/join 12 colour=blue` (None: any)."""
    if not args:
        return None
    if len(args) > 1:
        raise CommandError(N_("Write /join GAME-ID or /join GAME-ID COLOUR, not %(words)s."),
                           words=repr(" ".join(args)[:60]))
    word = args[0]
    if "=" in word:
        key, word = word.split("=", 1)
        if key.strip().lower() not in ("colour", "color"):
            raise CommandError(N_("/join takes only a colour (colour=blue), not %(key)s."), key=repr(key[:20]))
    return word.strip().lower() or None


def parse_new(args: tuple[str, ...]) -> tuple[str, int, dict, str | None, int | None]:
    """The title, players, options, colour and hours per turn of a /new command."""
    title, rest = args[0].lower(), args[1:]
    players, colour, hours, options = 2, None, None, {}
    for word in rest:
        if "=" not in word:
            raise CommandError(N_("Options are NAME=VALUE, not %(word)s."), word=repr(word))
        key, value = word.split("=", 1)
        key = key.strip().lower()
        if key == "players":
            if not value.isdigit():
                raise CommandError(N_("players= takes a number, not %(value)s."), value=repr(value))
            players = int(value)
        elif key in ("colour", "color"):
            colour = value
        elif key == "hours":
            if not value.isdigit():
                raise CommandError(N_("hours= takes a number, not %(value)s."), value=repr(value))
            hours = int(value)
        else:
            options[key] = value
    return title, players, options, colour, hours
