"""/newkeys: new nonces for the sender and their seats, so every key made before stops working."""

from __future__ import annotations

from sqlalchemy import select

from pbem import mailkeys
from pbem.i18n import N_
from pbem.mail import answers
from pbem.mail.commands import ACCOUNT, Spec
from pbem.models import Seat, User


def run(context, command) -> None:
    with context.db.transaction() as s:
        s.get(User, context.user.id).mail_nonce = mailkeys.new_nonce()
        for seat in s.scalars(select(Seat).where(Seat.user_id == context.user.id)):
            seat.token_nonce = mailkeys.new_nonce()
    context.say(context.gettext("New keys are made: your earlier command address and the reply addresses of your "
                                "seats no longer work. Your new command address is at the foot of this mail."))
    for section in answers.games_to_move(context.db, context.settings, context.user.id, context.language):
        context.say(*section)


COMMAND = Spec("newkeys", 110, run, doors=frozenset({ACCOUNT}), changes=True,
               usage=N_("/newkeys"), help=N_("new reply and command addresses (the old ones stop working)"))
