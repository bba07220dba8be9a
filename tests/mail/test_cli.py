"""`pbem mail ingest` (an MTA pipe) and `pbem mail send`."""

from __future__ import annotations

from click.testing import CliRunner

from pbem import games
from pbem.cli import main
from tests.mail.conftest import compose, counters_game, deliver_all, reply_to


def test_ingest_reads_one_message_from_stdin_and_send_empties_the_outbox(db, settings, tmp_path):
    game_id, by_seat = counters_game(db)
    turn = deliver_all(db, settings)[0]
    env = {"PBEM_DATABASE_URL": db.url, "PBEM_DATA_DIR": str(settings.data_dir), "PBEM_SECRET_KEY": settings.secret_key,
           "PBEM_MAIL_DOMAIN": settings.mail_domain, "PBEM_SMTP_URL": "outbox:"}
    runner = CliRunner()
    result = runner.invoke(main, ["mail", "ingest"], input=compose(by_seat[0], reply_to(turn), "take 2"), env=env)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("done:")
    assert [m["notation"] for m in games.history(db, game_id)] == ["take 2"]
    sent = runner.invoke(main, ["mail", "send"], env=env)
    assert sent.exit_code == 0 and sent.output.strip() == "2 sent"  # the answer and the next turn mail
    assert len(list((settings.data_dir / "outbox").glob("*.eml"))) == 3
