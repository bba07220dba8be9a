"""A reply to a message of the table talk: the door of the talk key (pbem.mailkeys.TalkKey, docs/security.md).

A message mailed to a player (pbem.notify, kind "message") has as Reply-To a talk key of that player
for that message. A reply to it is a message in the same conversation: to the whole table when the
message was, else to the message's author and the other players it was written to. The text is the
reply's own (quotes and signatures removed, pbem.mail.mime); it moves nothing. As with the command
key, the key's owner must write from their registered address: a key in the wrong hands writes
nothing in their name.
"""

from __future__ import annotations

from sqlalchemy import select

from pbem import i18n, talk
from pbem.db import Database
from pbem.mail import quotes
from pbem.mail.outcome import Answer, Received, Sender
from pbem.models import Message, Seat

def split_message(body: str) -> tuple[str, str | None]:
    """The orders of a reply and the message under its "--- message ---" line (None: it has none): the line
    the reading of quotes keeps as the player's own (pbem.mail.quotes.TALK_SEPARATOR)."""
    lines = body.split("\n")
    for at, line in enumerate(lines):
        if quotes.TALK_SEPARATOR.fullmatch(line.strip()):
            return "\n".join(lines[:at]), "\n".join(lines[at + 1:]).strip()
    return body, None


def post_with_turn(db: Database, who: Sender, text: str, answer: Answer) -> None:
    """Post the message of a reply to a turn mail (to the table, or to the players its first `@` words name),
    and say in the answer where it went or why it did not."""
    user, game_id = who.player, who.key.game_id
    _ = i18n.texts(user.language).gettext
    try:
        _message_id, names = talk.say(db, game_id, user.id, text, source="mail")
    except talk.TalkError as error:
        answer.sections.append([_("Your message in game %(game)d was not sent: %(reason)s", game=game_id,
                                  reason=error.text(user.language))])
        return
    answer.sections.append([_("Your message went to %(names)s in game %(game)d.", names=", ".join(names),
                              game=game_id) if names else
                            _("Your message went to the table of game %(game)d.", game=game_id)])


def run_talk_reply(db: Database, settings, who: Sender, body: str) -> tuple[Received, Answer]:
    """A mail to a valid talk key: post its text to the conversation of the message the key names."""
    user, key = who.player, who.key
    _ = i18n.texts(user.language).gettext
    if not who.from_owner:
        return (Received("forged_from", f"From {who.address}, to a talk address of {user.email}."),
                Answer(user.email, [[_("A mail from %(address)s came to the reply address of a message to you and was "
                                       "refused: it takes mail from your own address (%(own)s) only. Nothing was "
                                       "sent.", address=who.address, own=user.email)]],
                       user_id=user.id, language=user.language))
    with db.sessions() as s:
        message = s.get(Message, key.message_id)
        seats = list(s.scalars(select(Seat).where(Seat.game_id == message.game_id))) if message else []
    mine = next((seat for seat in seats if seat.user_id == user.id), None)
    answer = Answer(user.email, user_id=user.id, language=user.language,
                    game_id=message.game_id if message is not None else None)
    if message is None or mine is None:
        answer.sections.append([_("The message you answered is no longer there; nothing was sent.")])
        return Received("failed", "Talk key for a message that is gone."), answer
    to = None if message.to_seats is None else tuple(sorted((set(message.to_seats) | {message.seat})
                                                           - {mine.number}))
    try:
        talk.post(db, message.game_id, user.id, body, to=to, source="mail")
    except talk.TalkError as error:
        answer.sections.append([_("Your answer in game %(game)d was not sent: %(reason)s", game=message.game_id,
                                  reason=error.text(user.language))])
        return Received("failed", str(error), game_id=message.game_id), answer
    names = [seat.display_name for seat in seats if to is not None and seat.number in to]
    answer.sections.append([_("Your answer went to %(names)s in game %(game)d.", names=", ".join(names),
                              game=message.game_id) if names else
                            _("Your answer went to the table of game %(game)d.", game=message.game_id)])
    return Received("done", "Talk reply posted.", game_id=message.game_id), answer
