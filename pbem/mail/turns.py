"""A mail through a turn key: the decisions and commands of one seat in one game at one turn.

A turn key acts only on its game, its seat and its turn (docs/security.md): the mail is
refused as stale when the game is no longer at the key's move number, whatever it asks for;
account commands and commands about other games are refused; `/resign` is taken only from
the seat's own address. The answer goes to the seat's registered address.

The lines are read in order, as a judge reads an order mail (issue 33). A line is a move when
it is no "/" command. A line for a decision the game did not reach (after the move that ended
the turn) or that chance settled (`engine.OrderNotNeeded`) is answered "not needed" and the
reading goes on; a line for a decision still to come is kept as a standing order; a line that
fails for a reason of the player's own is reported with the reason, and reading stops there,
each move or command after it listed as not played. A line whose first word is no verb of the
game's notation ("Thanks!", a greeting, what is left of a signature) is prose: reading stops
there quietly, and the answer only counts the lines not read (unless that word is a command of
the turn written without its "/", such as "resign": that is reported with the form to write;
or the line is the first one and its word a typo of a verb or a command, "plcae": that is
answered with the nearest legal moves). A command word of the game's other languages (`Rules.command_word`: "plaatsen",
"würfeln") counts as the English verb it stands for. The verbs are the first
words of the legal moves' notations in the positions of this turn, and of the moves this
mail made: the engines have no list of their verbs, so they are learnt from what the engine
offers (read only when a line needs them, or when the mail has more than one line to read).
A subject that carries a bare move (a reply whose subject was replaced by the move, or has
it after our text) is read first, when its first word is such a verb.

The answer speaks the player's language (`Player.language`); the moves are read in the game's
English notation (and the aliases above) whatever the language, and the reason a move or a
command is refused (the engine's or the service's) is given in that language too.
"""

from __future__ import annotations

import difflib
import hashlib

from sqlalchemy import bindparam, update

import engine
from pbem import games, i18n
from pbem.db import Database
from pbem.mail import answers, commands
from pbem.mail.outcome import Answer, Received, Sender
from pbem.models import User

_VERIFY_EMAIL = update(User.__table__).where(User.__table__.c.id == bindparam("user_id")).values(
    email_verified=True)


def idempotency_key(message_id: str, line: int) -> str:
    """The key of one line of one message: the same message read again applies no move twice."""
    base = message_id if len(message_id) <= 200 else hashlib.sha256(message_id.encode()).hexdigest()
    return f"mail:{base}#{line}"


class _StaleError(Exception):
    """The game moved on between the mail's arrival and its first move."""


def run(db: Database, settings, who: Sender, lines: list[str], subject_move: str | None,
        message_id: str) -> tuple[Received, Answer]:
    """Act on a mail whose turn key is valid (`who.key_valid`); returns its outcome and answer."""
    key, user = who.key, who.player
    if user.from_check and not who.from_owner:
        _ = i18n.texts(user.language).gettext
        return (Received("forged_from", f"From {who.address}, but seat {key.seat} of game {key.game_id} "
                                        "takes mail only from its registered address.", game_id=key.game_id),
                Answer(user.email, [[
                    _("A mail from %(address)s came to the reply address of your seat in game %(game)d and was "
                      "refused: moves and commands for your seat are taken only from this address. Nothing was "
                      "done.", address=who.address, game=key.game_id), "",
                    _("If you wrote it from another address of yours, write from this one, or turn the check off "
                      "with /fromcheck off sent to your command address (below). If you did not, someone has "
                      "seen that reply address; it stops working once the turn is played.")]],
                    game_id=key.game_id, user_id=user.id, language=user.language))
    if not user.email_verified and who.from_owner:
        with db.transaction() as c:  # a reply from the seat's own address proves that the address works
            c.execute(_VERIFY_EMAIL, {"user_id": user.id})
    if who.version != key.seq:
        return _stale(db, settings, who)
    turn = Turn(db, settings, who, message_id)
    try:
        return turn.read(lines, subject_move)
    except _StaleError:
        return _stale(db, settings, who)


def _stale(db: Database, settings, who: Sender) -> tuple[Received, Answer]:
    key, user = who.key, who.player
    data = games.view(db, key.game_id, user.id, language=user.language)
    answer = Answer(user.email, game_id=key.game_id, user_id=user.id, language=user.language)
    answer.sections.append([i18n.texts(user.language).gettext(
        "This turn has already been played: the reply address was for move %(key_move)d, and game %(game)d is "
        "at move %(move)d now. Nothing in your mail was read, and nothing was done.", key_move=key.seq + 1,
        game=key.game_id, move=data["version"] + 1)])
    answers.position(db, settings, data, answer, turn_key=True)
    return (Received("stale", f"Reply for move {key.seq + 1}; the game is at move {data['version'] + 1}.",
                     game_id=key.game_id), answer)


class Turn:
    """The reading of one mail through a turn key: the context its commands run in (door TURN)."""

    door = commands.TURN

    def __init__(self, db: Database, settings, who: Sender, message_id: str):
        self.db, self.settings, self.who, self.message_id = db, settings, who, message_id
        self.key, self.user = who.key, who.player
        self.game_id = self.key.game_id
        self.expected: int | None = self.key.seq  # the moves the game must stand at for the next move
        self.result = Received("done", game_id=self.game_id)
        self.language = self.user.language
        self.t = i18n.texts(self.language)  # the answer's language
        self.answer = Answer(self.user.email, game_id=self.game_id, user_id=self.user.id, language=self.language)
        self.extra: list[list[str]] = []
        self.verbs: set[str] = set()
        self.learnt_at: int | None = None  # the moves played in the position whose legal moves are in `verbs`
        self.view: dict | None = None  # the latest view read
        self.last: games.SubmitResult | None = None
        self.stopped = False
        self.board_asked = False
        self.resigned = False
        self.queued: list[str] | None = None  # the seat's standing orders after this mail, if it wrote any

    # ----------------------------------------------------------------------------------
    # Reading

    def read(self, lines: list[str], subject_move: str | None) -> tuple[Received, Answer]:
        if lines and subject_move is not None and " ".join(subject_move.lower().split()) == " ".join(
                lines[0].lower().split()):
            subject_move = None  # the move in the subject and again on the first line: one move
        if subject_move is not None or len(lines) > 1:
            self._learn()
        if subject_move is not None and commands.first_word(subject_move) in self.verbs:
            lines = [subject_move] + lines
        listing = True  # after a failure, its moves and commands are listed (not played) up to the first prose
        for index, line in enumerate(lines):
            if self.stopped or index >= commands.MAX_LINES:
                if self.result.failed and listing and index < commands.MAX_LINES and self._is_order_line(line):
                    self.result.not_played.append(answers.echo(line))
                else:
                    listing = False
                    self.result.not_read += 1
                continue
            self._line(index, line)
        return self._finish()

    def _is_order_line(self, line: str) -> bool:
        """Whether a line is a move or a command (a "/" command, or a verb of the notation), not prose."""
        return line.lstrip().startswith("/") or self._is_verb(line)

    def _line(self, index: int, line: str) -> None:
        try:
            command = commands.parse(line, self.game_id, index)
        except commands.CommandError as error:
            self._fail(line, error.text(self.language))
            return
        if command.name == "play":
            self.play(index, line, line, bare=True)
            return
        spec = commands.spec(command.name)
        _ = self.t.gettext
        if commands.TURN not in spec.doors:
            self._fail(line, _("/%(name)s is not taken through a game's reply address: send it to your command "
                               "address (at the foot of this mail), from your own address.", name=command.name))
        elif command.game_id != self.game_id:
            self._fail(line, _("This reply address is for game %(game)d only. Ask about game %(other)d through "
                               "your command address (at the foot of this mail).", game=self.game_id,
                               other=command.game_id))
        else:
            try:
                spec.run(self, command)
            except (commands.CommandError, games.GameError) as error:
                self._fail(line, error.text(self.language))
                return
            if not spec.reports:
                self.result.done.append(answers.echo(line))

    # ----------------------------------------------------------------------------------
    # What the commands use (pbem.mail.commands.Spec.run at the TURN door)

    def gettext(self, message: str, **values) -> str:
        return self.t.gettext(message, **values)

    def ngettext(self, singular: str, plural: str, num: int, **values) -> str:
        return self.t.ngettext(singular, plural, num, **values)

    def say(self, *lines: str) -> None:
        self.extra.append(list(lines))

    def play(self, index: int, line: str, notation: str, bare: bool) -> None:
        """Submit a move (a bare line, or /move's notation); report it, or what stopped the reading."""
        try:
            done = games.submit(self.db, self.game_id, notation, user_id=self.user.id, source="email",
                                key=idempotency_key(self.message_id, index), expected_version=self.expected)
        except games.StalePositionError as error:
            if self.last is None and not self.result.done:
                raise _StaleError() from None
            self._fail(line, error.text(self.language))
            return
        except games.GameError as error:
            reason = error.text(self.language)
            if self._turn_over():
                # This mail's moves ended the turn: the lines after them are for decisions the game did
                # not reach (issue 33). Prose still ends the reading quietly.
                if bare and not self._is_verb(line):
                    self.stopped = True
                    self.result.not_read += 1
                else:
                    self._not_needed(line, self._why_over())
                return
            if isinstance(error, games.IllegalMoveError) and self._takes_orders():
                # Not a move now: a standing order for later in the turn, if the engine reads it as one.
                try:
                    self._order(index, line, notation)
                    return
                except games.NotNeededError as needless:  # the game went past its decision, or chance settled it
                    self._not_needed(line, needless.text(self.language))
                    return
                except games.IllegalMoveError as order_error:
                    reason = order_error.text(self.language)  # why it can never apply in this turn
                except games.GameError as other:
                    reason = other.text(self.language)
            if bare and not self._is_verb(line):
                word = commands.first_word(line).rstrip("!.,:;?")
                if word in commands.registry() and commands.TURN in commands.spec(word).doors:
                    # "resign", "board": a command of the turn without its "/"
                    self._fail(line, self.t.gettext('Commands start with "/": write /%(word)s.', word=word))
                    return
                typo = self._typo(line) if self._nothing_read_yet() else None
                if typo is not None:  # "plcae Tonga 6" on the first line: a typo, not prose (issue 33)
                    self._fail(line, typo)
                    return
                self.stopped = True  # prose after the moves: the reading ends here, without a report
                self.result.not_read += 1
                return
            self._fail(line, reason)
            return
        self.expected = None if done.duplicate else done.seq + len(done.auto_moves)
        self.last = done
        self.verbs.add(commands.first_word(done.notation))
        if done.auto_moves:
            report = self.t.gettext("%(line)s  -> move %(seq)d: %(notation)s (then automatically: %(auto)s)",
                                    line=answers.echo(line), seq=done.seq, notation=done.notation,
                                    auto=", ".join(done.auto_moves))
        else:
            report = self.t.gettext("%(line)s  -> move %(seq)d: %(notation)s", line=answers.echo(line),
                                    seq=done.seq, notation=done.notation)
        self.result.done.append(report)

    def _order(self, index: int, line: str, notation: str) -> None:
        """Queue the line as a standing order (issue 20), or raise the engine's reason it never applies."""
        done = games.add_orders(self.db, self.game_id, [notation], user_id=self.user.id,
                                key=idempotency_key(self.message_id, index), expected_version=self.expected)
        if done.played:
            self.expected = done.version
            self.last = games.SubmitResult(self.game_id, done.version, done.played[-1], to_move=done.to_move,
                                           finished=done.to_move is None)
            self.view = None
        self.queued = done.queued
        self.verbs.add(commands.first_word(notation))
        if done.played:
            report = self.t.gettext("%(line)s  -> queued as a standing order; played now: %(played)s",
                                    line=answers.echo(line), played=", ".join(done.played))
        else:
            report = self.t.gettext("%(line)s  -> queued as a standing order", line=answers.echo(line))
        self.result.done.append(report)

    def _turn_over(self) -> bool:
        """Whether the moves of this mail (and the orders they set off) ended the seat's turn or the game."""
        last = self.last
        return last is not None and (last.finished or last.to_move != self.key.seat)

    def _why_over(self) -> str:
        move = self.current()["version"]  # the last move played: the one that ended the turn, or what followed it
        if self.last.finished:
            return self.t.gettext("the game ended (move %(move)d) before this line.", move=move)
        return self.t.gettext("your turn ended before this line (the game is at move %(move)d).", move=move + 1)

    def _not_needed(self, line: str, reason: str) -> None:
        """A line for a decision the game did not reach, or that chance settled: said so, and reading goes on."""
        self.result.not_needed.append((answers.echo(line), reason))

    def _takes_orders(self) -> bool:
        return engine.get(self.current()["title"]).takes_orders

    def _fail(self, line: str, reason: str) -> None:
        self.result.failed = (answers.echo(line), reason)
        self.stopped = True

    def _nothing_read_yet(self) -> bool:
        result = self.result
        return self.last is None and not result.done and not result.not_needed and result.failed is None

    def _typo(self, line: str) -> str | None:
        """Why a first line that is close to a move or a command is none, with the nearest ones
        ("did you mean `place Tonga 6`?"); None when it is far from all of them (prose)."""
        word = commands.first_word(line).rstrip("!.,:;?")
        data = self.current()
        rules = engine.get(data["title"])
        words = {verb: verb for verb in self.verbs}  # a word the player may write -> the English verb
        aliases = rules.command_aliases.of(self.language) if rules.command_aliases else {}
        for english, written in aliases.items():
            if english in self.verbs:
                words.update({normalize_word(w): english for w in written})
        turn_commands = [name for name, spec in commands.registry().items() if commands.TURN in spec.doors]
        near = nearest(word, list(words) + turn_commands)
        if near is None:
            return None
        _ = self.t.gettext
        if near not in words:
            return _('"%(word)s" is no move and no command; did you mean /%(command)s?', word=word, command=near)
        verb = words[near]
        written = " ".join([verb, *line.split(maxsplit=1)[1:]])  # the line with the verb spelt right
        legal = data.get("legal_moves") or []
        same = [m for m in legal if normalize_word(m) == normalize_word(written)]
        found = same or difflib.get_close_matches(written, legal, n=3, cutoff=0.6) or \
            [m for m in legal if commands.first_word(m) == verb][:3]
        if not found:
            return _('"%(word)s" is no word of the game\'s notation; did you mean %(verb)s?', word=word, verb=verb)
        return _('"%(word)s" is no word of the game\'s notation; did you mean %(moves)s?', word=word,
                 moves=", ".join(f"`{m}`" for m in found))

    # ----------------------------------------------------------------------------------
    # The verbs of the notation

    def current(self) -> dict:
        """The game as the seat sees it now (read again only when a move was made since the last read)."""
        if self.view is None or (self.last is not None and self.view["version"] < self.last.seq):
            self.view = games.view(self.db, self.game_id, self.user.id, language=self.user.language)
        return self.view

    def _learn(self) -> None:
        """Add the first words of the legal moves in the current position, if it is the seat's turn."""
        data = games.view(self.db, self.game_id, self.user.id, language=self.user.language)
        self.view = data
        if data["version"] != self.learnt_at:
            self.learnt_at = data["version"]
            self.verbs |= {commands.first_word(move) for move in data.get("legal_moves") or []}
            self.verbs |= {commands.first_word(order) for order in data.get("order_examples") or []}
            self.verbs |= {commands.first_word(line) for line in data.get("turn_example") or []}

    def _is_verb(self, line: str) -> bool:
        word = commands.first_word(line)
        if word in self.verbs:
            return True
        self._learn()
        if word in self.verbs:
            return True
        # A command word of another language ('plaatsen', 'würfeln': issue 24) stands for an English one.
        return engine.get(self.view["title"]).command_word(word) in self.verbs

    # ----------------------------------------------------------------------------------
    # The answer

    def _finish(self) -> tuple[Received, Answer]:
        result, answer, last = self.result, self.answer, self.last
        if result.failed:
            result.outcome = "partial" if result.done or result.not_needed else "failed"
        elif not result.done and not result.not_needed:
            return self._nothing_found()
        result.detail = (f"{len(result.done)} done, {1 if result.failed else 0} failed, "
                         f"{result.not_read} not read")
        if result.not_needed or result.not_played:
            result.detail += f", {len(result.not_needed)} not needed, {len(result.not_played)} not played"
        _ = self.t.gettext
        answer.sections.append(answers.results(result, self.language))
        if self.queued and not self._turn_over():  # (a turn that ended dropped what was left of them)
            answer.sections.append([_("Your standing orders, in the order they are tried (played when their "
                                      "decision comes; one that finds no legal choice leaves it to you):")]
                                   + ["  " + _("queued: %(order)s", order=order) for order in self.queued]
                                   + [_("Send /cancel through this address to drop them.")])
        answer.sections += self.extra
        if last is not None and last.finished:
            answer.sections.append([_("Game %(game)d is over.", game=self.game_id)])
            return result, answer
        if self.resigned:
            return result, answer
        passed = last is not None and last.to_move != self.key.seat
        if passed and not result.failed and not self.board_asked:
            answer.sections.append([_("Game %(game)d goes on; the next player has been sent the board.",
                                      game=self.game_id)])
            return result, answer
        data = self.current()
        if last is not None and data.get("legal_moves"):
            answer.sections.append([_("It is still your turn in game %(game)d, move %(move)d.", game=self.game_id,
                                      move=data["version"] + 1)])
        elif passed and data["status"] == "running":
            to_move = next((x["name"] for x in data["seats"] if x["seat"] == data["to_move"]), "?")
            answer.sections.append([_("Game %(game)d goes on: %(name)s is to move.", game=self.game_id,
                                      name=to_move)])
        answers.position(self.db, self.settings, data, answer, turn_key=True)
        return result, answer

    def _nothing_found(self) -> tuple[Received, Answer]:
        result, answer = self.result, self.answer
        result.outcome, result.detail = "empty", "No commands found."
        answer.sections.append(answers.nothing_found(result.not_read, self.language))
        answers.position(self.db, self.settings, self.current(), answer, turn_key=True)
        answer.sections.append(answers.subject_form(self.language))
        return result, answer


def normalize_word(word: str) -> str:
    return " ".join(word.lower().split())


def distance(a: str, b: str) -> int:
    """The edit distance of two words, a swap of two neighbouring letters counting as one edit
    ("plcae" is one from "place")."""
    previous2, previous = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[len(b)]


def nearest(word: str, candidates: list[str]) -> str | None:
    """The candidate a word is a typo of: within one edit for words of 4 or 5 letters, two for longer
    ones (shorter words are too easily another word); None when none is that close, or two are."""
    if len(word) < 4 or not word.isalpha():
        return None
    limit = 1 if len(word) <= 5 else 2
    scored = sorted((distance(word, c), c) for c in set(candidates) if c and c != word)
    if not scored or scored[0][0] > limit or len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return scored[0][1]
