"""What one inbound message is about while it is read: who sent it, through which key, and what became of it.

`Sender` is read in the transaction that stores the message (pbem.mail.inbound); `Received`
is what `inbound.receive` returns; `Answer` is the answer being put together. The rule every
part of the mail door keeps (docs/security.md): an answer goes to the registered address of
the key's owner (`Sender.answer_to`), whoever wrote, and to a sender without an account only
the confirmation code. This module holds data only; the texts are in pbem.mail.answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem import i18n, mailkeys


@dataclass(frozen=True)
class Player:
    """The user a message acts for, as read with the message (what the lines need of a User)."""

    id: int
    email: str
    email_verified: bool
    from_check: bool
    language: str = i18n.DEFAULT  # the language of the answers (User.language)

    @classmethod
    def of(cls, row) -> Player:
        return cls(row.id, row.email, bool(row.email_verified), bool(row.from_check),
                   i18n.normalize(row.language) or i18n.DEFAULT)


@dataclass(frozen=True)
class Sender:
    """Who sent a message and what key it came through.

    `address`: the From address. `key`: the key of the address it was sent to, if any;
    `key_valid`: whether its owner exists and its mac is right for the owner's nonce now.
    `player`: the key's owner when the key is valid, else the user of the From address (if
    there is one). `version`: for a valid turn key, the moves played in its game now.
    """

    address: str
    key: mailkeys.Key | None = None
    key_valid: bool = False
    player: Player | None = None
    version: int | None = None

    @property
    def answer_to(self) -> str | None:
        """The registered address answers go to: the valid key's owner's, or the sender's own when
        it has a confirmed account; None for a sender without one."""
        if self.player is None:
            return None
        if self.key_valid or self.player.email_verified:
            return self.player.email
        return None

    @property
    def from_owner(self) -> bool:
        """Whether the From address is the registered address of the user the message acts for."""
        return self.player is not None and self.address == self.player.email


@dataclass
class Received:
    """What became of one message: its outcome, and for commands what was done, what was not needed
    and why, what failed and why, the moves and commands not played after it, and how many lines
    were not read."""

    outcome: str
    detail: str = ""
    inbound_id: int | None = None
    message_id: str | None = None
    game_id: int | None = None
    done: list[str] = field(default_factory=list)
    failed: tuple[str, str] | None = None
    not_read: int = 0
    # Issue 33: lines for a decision the game did not reach (line, why; reading went on), and the
    # moves and commands after a failure (their lines: not played).
    not_needed: list[tuple[str, str]] = field(default_factory=list)
    not_played: list[str] = field(default_factory=list)
    answer_id: int | None = None


@dataclass
class Answer:
    """The answer being put together while the lines are read.

    `to` is where it goes (None: not answered). The Reply-To is a turn key when `reply_seat`
    is set (`reply_seq` moves played), a request key for the stored mail `request`, or else the
    user's command address (pbem.mail.outbound makes them when the mail is sent). `language` is the
    one the answer is written in: its reader's (`Player.language`), or for a sender without an
    account the one their mail declares (Content-Language), else English.
    """

    to: str | None
    sections: list[list[str]] = field(default_factory=list)
    game_id: int | None = None
    user_id: int | None = None
    reply_seat: int | None = None
    reply_seq: int | None = None
    board_seq: int | None = None
    board_viewer: int | None = None
    request: int | None = None
    subject: str | None = None  # which of our subjects (pbem.notify.wording.SUBJECTS); "answer" when unset
    language: str = i18n.DEFAULT
