"""Issue 35 item 7: the notice "your vacation bank is running out", by mail and to the webhooks that take it.

A deadline that passes spends one of the late player's banked vacation days instead of counting
(pbem.schedule.deadlines.process). When the spending leaves 1 day, and again when it leaves 0, the
player is told once (events.vacation_low -> a Notice of kind "vacation"): by mail (account news,
outside the game's thread) and to each of their webhooks whose kinds include "vacation".
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from pbem.models import OutboundMail, User, WebhookDelivery
from pbem.notify import webhooks
from pbem.schedule import absences, deadlines
from tests.mail.conftest import deliver_all, mail_text, settings  # noqa: F401 (settings: a fixture)
from tests.worker.helpers import T0, game, mails, table

H = timedelta(hours=1)
TAKES = "https://93.184.216.34/hooks/vacation-abcdefgh"  # public addresses written as such: no DNS asked
OTHER = "https://93.184.216.34/hooks/other-abcdefgh"
ALL_BUT_VACATION = [kind for kind in webhooks.CHOICES if kind != "vacation"]


def posts(db, hook_id: int) -> list[WebhookDelivery]:
    with db.sessions() as s:
        found = list(s.scalars(select(WebhookDelivery).where(WebhookDelivery.webhook_id == hook_id)
                               .order_by(WebhookDelivery.id)))
        s.expunge_all()
        return found


def bank(db, user_id: int) -> int:
    with db.sessions() as s:
        return s.get(User, user_id).vacation_days


def test_35_7_the_vacation_bank_at_1_and_at_0_is_told_once_each_by_mail_and_webhook(db, settings):
    game_id, users = table(db)
    player = users[0]  # seat 0 is to move first
    absences.set_vacation_days(db, player, 2)
    takes = webhooks.add(db, player, TAKES, "discord", ["vacation"])
    other = webhooks.add(db, player, OTHER, "slack", ALL_BUT_VACATION)
    deliver_all(db, settings)  # the start's turn mails, out of the way

    assert deadlines.process(db, game_id, T0 + 24 * H) == "vacation"
    assert bank(db, player) == 1
    [mail] = deliver_all(db, settings)
    assert mail["To"] == "p0@example.org" and mail["Subject"] == "[pbem] 1 vacation day left"
    assert mail["X-Pbem-Game"] is None  # account news: not a mail of the game's thread
    text = mail_text(mail)
    assert "game %d" % game_id in text and "You have 1 vacation day left: after that a missed deadline counts" in text
    assert "declare an absence" in text and "https://pbem.example/settings" in text
    [post] = posts(db, takes["id"])
    assert post.kind == "vacation" and post.game_id == game_id and "1 day is left" in post.text

    deadline = game(db, game_id).deadline
    assert deadlines.process(db, game_id, deadline) == "vacation"
    assert bank(db, player) == 0
    [mail] = deliver_all(db, settings)
    assert mail["Subject"] == "[pbem] 0 vacation days left"
    assert "You have no vacation days left: from now on a missed deadline counts" in mail_text(mail)
    assert [p.kind for p in posts(db, takes["id"])] == ["vacation", "vacation"]
    assert "0 days are left" in posts(db, takes["id"])[-1].text

    # The bank is empty: the third deadline counts, and nothing more is said about vacation days.
    assert deadlines.process(db, game_id, game(db, game_id).deadline) == "late"
    assert len(mails(db, "vacation")) == 2 and len(posts(db, takes["id"])) == 2
    # The webhook without "vacation" took the lateness it chose, and no vacation news at all.
    assert [p.kind for p in posts(db, other["id"])] == ["late"]


def test_35_7_a_day_spent_above_1_says_nothing_and_mail_none_keeps_the_webhook(db, settings):
    game_id, users = table(db)
    player = users[0]
    absences.set_vacation_days(db, player, 3)
    with db.transaction() as s:
        s.get(User, player).notify = "none"
    takes = webhooks.add(db, player, TAKES, "matrix")  # the default kinds, which include "vacation"
    assert "vacation" in takes["kinds"]

    assert deadlines.process(db, game_id, T0 + 24 * H) == "vacation"  # 3 -> 2: not low yet
    assert posts(db, takes["id"]) == [] and mails(db, "vacation") == []
    assert deadlines.process(db, game_id, game(db, game_id).deadline) == "vacation"  # 2 -> 1
    assert [p.kind for p in posts(db, takes["id"])] == ["vacation"]
    assert mails(db, "vacation") == []  # mail "none": no mail, not even account news


def test_35_7_two_deadlines_passing_together_spend_two_days_and_tell_each_level_once(db):
    first, users = table(db)
    second, again = table(db)  # the same two players at a second table
    assert again == users
    player = users[0]
    absences.set_vacation_days(db, player, 2)
    at = T0 + 24 * H
    assert [deadlines.process(db, game_id, at) for game_id in (first, second)] == ["vacation", "vacation"]
    assert bank(db, player) == 0
    with db.sessions() as s:
        rows = list(s.execute(select(OutboundMail.subject, OutboundMail.body_text)
                              .where(OutboundMail.kind == "vacation").order_by(OutboundMail.id)))
    assert [subject for subject, _ in rows] == ["[pbem] 1 vacation day left", "[pbem] 0 vacation days left"]
    assert f"game {first} " in rows[0][1] and f"game {second} " in rows[1][1]
