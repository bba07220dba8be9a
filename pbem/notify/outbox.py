"""The outbox: one row per mail to send, written in the transaction that caused the mail.

`queue` adds a row and posts its send job once the transaction commits (pbem.jobs), so
the mail leaves as soon as the change is stored, and a mail is never sent for a change that
rolled back. pbem.mail.outbound sends the row: it adds what only the moment of sending
knows (the keys in Reply-To and in the footer, the board picture, the threading headers). A
row's `headers` holds hints for that, not header lines: reply_seat/reply_seq (the seat's turn
key for Reply-To), request (the stored mail a request key in Reply-To confirms), in_reply_to
(the mail answered), auto (the Auto-Submitted value), language (the language the text is written
in, so that what is added at send time, such as the footer, speaks it too), view_text (the text
is the seat's view of the board, written when the row is first sent), move and turn (the moment a
game mail is about, for its X-Pbem-Move and X-Pbem-Turn headers), talk_message (a message of the
table talk: the Reply-To is the reader's talk key for it), from_name (the name of the player who
wrote it, for the From), and, set by the sender when it
first takes the row, parent (the Message-ID of the mail of the same game sent before to the same
address, for References: pbem.mail.outbound).

What goes into a header is cleaned here, where it enters (`header_text`): a display name or a
Message-ID with a line break in it would make a mail that cannot be built.
"""

from __future__ import annotations

import re

from sqlalchemy.orm import Session

from pbem import i18n, jobs
from pbem.models import OutboundMail, utcnow

BASE_URL = "{base_url}"  # in a text, replaced by the site's address when the mail is built
NOTIFICATION_KINDS = ("turn", "move", "result", "digest")  # mails about games a player can switch off
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")


def header_text(value: str, limit: int = 400) -> str:
    """A value fit for one header line: control characters (CR, LF, tabs, ...) become one space."""
    return " ".join(_CONTROL.sub(" ", value or "").split())[:limit]


def queue(s: Session, *, kind: str, recipient: str, subject: str, body: str | None, user_id: int | None = None,
          game_id: int | None = None, seq: int | None = None, reply_seat: int | None = None,
          reply_seq: int | None = None, in_reply_to: str | None = None, board_viewer: int | None = None,
          request: int | None = None, language: str | None = None, move: int | None = None,
          turn: str | None = None, talk_message: int | None = None, from_name: str | None = None) -> int:
    """Write one outbox row in the session's transaction and post its send job after the commit; returns its id.

    `board_viewer` attaches the picture of the board after move `seq` as that seat (or -1, a
    spectator) sees it; `reply_seat`/`reply_seq` make the Reply-To that seat's turn key for that
    move; `request` makes it the user's request key for that stored inbound mail. Otherwise the
    Reply-To of a mail to a user is their command address. `language` is the language of the
    text (pbem.i18n; None: English), for what is added to it when the mail is built. A `body` of
    None is written when the mail is sent: what the `board_viewer` seat saw after move `seq`
    (pbem.notify.view_text; the hint `view_text` says so until then). `move` and `turn` say which move
    the game waits for and whose it is (a game mail's X-Pbem-Move and X-Pbem-Turn).
    """
    hints: dict = {"auto": "auto-replied" if in_reply_to else "auto-generated"}  # RFC 3834: an answer, or not
    if reply_seat is not None:
        hints["reply_seat"] = reply_seat
        hints["reply_seq"] = reply_seq
    if request is not None:
        hints["request"] = request
    if language and language != i18n.DEFAULT:
        hints["language"] = language
    if in_reply_to:
        hints["in_reply_to"] = header_text(in_reply_to, 900)
    if move is not None:
        hints["move"] = move
    if turn:
        hints["turn"] = header_text(turn, 80)
    if talk_message is not None:  # Reply-To: the recipient's talk key for that message (pbem.mailkeys)
        hints["talk_message"] = talk_message
    if from_name:  # the From's name: who wrote a player's message ("Ann (pbem)")
        hints["from_name"] = header_text(from_name, 80)
    attachments = []
    if board_viewer is not None and game_id is not None and seq is not None:
        attachments.append({"board": {"game_id": game_id, "seq": seq, "viewer": board_viewer}})
    if body is None:
        if not attachments:
            raise ValueError("A text written when the mail is sent needs the game, the move and the viewer.")
        hints["view_text"] = True
    row = OutboundMail(game_id=game_id, user_id=user_id, kind=kind, recipient=header_text(recipient, 320),
                       subject=header_text(subject), body_text=body or "", seq=seq, headers=hints,
                       attachments=attachments, status="pending", attempts=0, created_at=utcnow())
    s.add(row)
    s.flush()
    jobs.after_commit(s, jobs.SEND_MAIL, row.id)
    return row.id
