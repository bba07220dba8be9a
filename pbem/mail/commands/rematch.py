"""/rematch [GAME-ID] [no]: ask for the rematch of a finished game, accept it, or decline it; and its mails.

The offer is pbem.players.rematch's: `/rematch` proposes it when none is open (the proposer has
accepted) and accepts the open one otherwise; `/rematch no` declines it. At the command address the
game's id is needed (`/rematch 12`); in a reply to the offer's mail it is not, and there the line
answers that offer: when it was declined or lapsed meanwhile, the reply is refused with the reason
(and proposes nothing).

The mails of an offer are written here (`tell`, which every door hands to pbem.players.rematch, in the
transaction of the change; that package may not import pbem.notify): to each other player, in the
game's thread and in their language (template `rematch.txt`), the offer, whose Reply-To is the key of
their seat in the finished game at its last move, so that a reply whose first line is `/rematch`
accepts it and `/rematch no` declines it, and nothing else is needed; then that it started, or that
it was declined. A player whose mail setting is `none` gets none of them: the game page shows the offer.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

import engine
from pbem import i18n
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, TURN, CommandError, Spec
from pbem.notify import outbox, wording
from pbem.players import rematch
from renderers.i18n import colour_word

YES, NO = ("yes", "accept"), ("no", "decline")


def parse_rematch(args: tuple[str, ...]) -> bool:
    """Whether a /rematch line declines (`/rematch 12 no`) rather than proposes or accepts (`/rematch 12`)."""
    if not args:
        return False
    word = args[0].lower()
    if len(args) > 1 or word not in YES + NO:
        raise CommandError(N_("Write /rematch GAME-ID to ask for a rematch or accept it, or /rematch GAME-ID no to "
                              "decline it; not %(words)s."), words=repr(" ".join(args)[:60]))
    return word in NO


def check(args: tuple[str, ...]) -> None:
    parse_rematch(args)


def run(context, command) -> None:
    _ = context.gettext
    game = command.game_id
    if parse_rematch(command.args):
        done = rematch.decline(context.db, game, context.user.id, tell=tell)
        context.say(_("You declined the rematch of game %(game)d.", game=game) if done.kind == "declined" else
                    _("You had declined the rematch of game %(game)d already; nothing was done.", game=game))
    else:
        done = rematch.accept(context.db, game, context.user.id, tell=tell, answering=context.door == TURN)
        context.say(said(context, done))
    context.answer.game_id = game


def said(texts, done: rematch.Outcome) -> str:
    """What an answer says of an accepted rematch (`texts`: anything with the reader's `gettext`)."""
    _, offer = texts.gettext, done.offer
    waiting = ", ".join(offer.waiting)
    if done.kind == "proposed":
        return _("You proposed a rematch of game %(game)d; it starts when %(names)s accepted.", game=offer.game_id,
                 names=waiting)
    if done.kind == "accepted":
        return _("You accepted the rematch of game %(game)d; it starts when %(names)s accepted.", game=offer.game_id,
                 names=waiting)
    if done.kind == "started":
        return _("Every player accepted: the rematch of game %(game)d is game %(new)d, and it has begun.",
                 game=offer.game_id, new=offer.new_game_id)
    if offer.new_game_id is not None:
        return _("The rematch of game %(game)d is game %(new)d already; nothing was done.", game=offer.game_id,
                 new=offer.new_game_id)
    return _("You had accepted the rematch of game %(game)d already; it starts when %(names)s accepted.",
             game=offer.game_id, names=waiting)


def tell(s: Session, news: rematch.News) -> None:
    """The mails of a change to a rematch offer, in its transaction: to every player but the one who made it."""
    game, title = news.game, engine.get(news.game.title).title
    new_seats = {seat.user_id: seat for seat in news.new_game.seats} if news.new_game is not None else {}
    for seat in news.seats:
        user = seat.user
        if user is None or user.id == news.actor_id or user.notify == "none":
            continue
        texts = i18n.texts(user.language)
        mine = new_seats.get(user.id)
        body = wording.render(
            "rematch.txt", user.language, kind=news.kind, game=game.id, title=title,
            actor=next((x.display_name for x in news.seats if x.user_id == news.actor_id), "?"),
            players=[{"name": p.name, "colour": colour_word(texts, p.colour) if p.colour else None}
                     for p in news.offer.players],
            lapses=wording.when(news.offer.lapses_at, user.language, "%Y-%m-%d %H:%M UTC"),
            new_game=news.new_game.id if news.new_game is not None else None,
            seat=mine.number + 1 if mine is not None else None,
            colour=colour_word(texts, mine.colour) if mine is not None and mine.colour else None)
        offered = news.kind == "offered"  # a reply to the offer accepts it: the seat's key at the game's last move
        outbox.queue(s, kind="rematch", recipient=user.email, user_id=user.id, game_id=game.id, seq=game.version,
                     subject=wording.thread_subject(game.id, title, user.language), body=body, language=user.language,
                     reply_seat=seat.number if offered else None, reply_seq=game.version if offered else None)


COMMAND = Spec("rematch", 35, run, doors=frozenset({TURN, ACCOUNT}), needs_game=True, changes=True, check=check,
               usage=N_("/rematch GAME-ID [no]"),
               help=N_("play a finished game again, or accept the rematch offered\n(the same players and options, "
                       "the seats moved round by one);\n/rematch GAME-ID no declines it"),
               missing_game=N_("Write /rematch GAME-ID, with the number of the finished game (it stands after # in "
                               "the subject of its mails)."))
