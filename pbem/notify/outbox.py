"""The outbox: one row per mail to send, written in the transaction that caused the mail.

`queue` adds a row and posts its send job once the transaction commits (pbem.jobs), so
the mail leaves as soon as the change is stored, and a mail is never sent for a change that
rolled back. pbem.mail.outbound sends the row: it adds what only the moment of sending
knows (the seat's reply address, the board picture, the threading headers). A row's
`headers` holds hints for that, not header lines: reply_seat/reply_seq (the seat key to
put in Reply-To), in_reply_to (the mail answered), auto (the Auto-Submitted value).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbem import jobs
from pbem.models import OutboundMail, utcnow

BASE_URL = "{base_url}"  # in a text, replaced by the site's address when the mail is built
NOTIFICATION_KINDS = ("turn", "move", "result", "digest")  # mails about games a player can switch off


def queue(s: Session, *, kind: str, recipient: str, subject: str, body: str, user_id: int | None = None,
          game_id: int | None = None, seq: int | None = None, reply_seat: int | None = None,
          reply_seq: int | None = None, in_reply_to: str | None = None, board_viewer: int | None = None) -> int:
    """Write one outbox row in the session's transaction and post its send job after the commit; returns its id.

    `board_viewer` attaches the picture of the board after move `seq` as that seat (or -1, a
    spectator) sees it; `reply_seat`/`reply_seq` make the Reply-To that seat's key for that move.
    """
    hints: dict = {"auto": "auto-replied" if in_reply_to else "auto-generated"}  # RFC 3834: an answer, or not
    if reply_seat is not None:
        hints["reply_seat"] = reply_seat
        hints["reply_seq"] = reply_seq
    if in_reply_to:
        hints["in_reply_to"] = in_reply_to[:900]
    attachments = []
    if board_viewer is not None and game_id is not None and seq is not None:
        attachments.append({"board": {"game_id": game_id, "seq": seq, "viewer": board_viewer}})
    row = OutboundMail(game_id=game_id, user_id=user_id, kind=kind, recipient=recipient, subject=subject[:400],
                       body_text=body, seq=seq, headers=hints, attachments=attachments, status="pending",
                       attempts=0, created_at=utcnow())
    s.add(row)
    s.flush()
    jobs.after_commit(s, jobs.SEND_MAIL, row.id)
    return row.id
