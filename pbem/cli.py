"""The `pbem` command: database, games, archives, verification and running the service.

Every command reads its configuration from PBEM_* environment variables (see README).
Game commands act for a player named by `--as EMAIL` (created on first use: this is the
operator's tool, the web and mail doors authenticate players themselves).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

import engine
from pbem import accounts, config, games, migrate, talk, wiring
from pbem.db import Database
from pbem.games import archive
from pbem.players import ratings


def _db() -> Database:
    return Database(config.load().database_url)


def _read(read):
    """What `read(database)` returns, with the configured database opened and disposed of around it."""
    database = _db()
    try:
        return read(database)
    finally:
        database.dispose()


def _fail(error: Exception) -> None:
    raise click.ClickException(str(error))


def _parse_options(pairs: tuple[str, ...]) -> dict:
    options = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.BadParameter(f"options are NAME=VALUE, not {pair!r}", param_hint="--option")
        name, value = pair.split("=", 1)
        options[name.strip()] = value.strip()
    return options


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pbem")
def main():
    """pbem: slow board games by email and on the web.

    Start with `pbem db upgrade`, then `pbem run`. Games: `pbem game --help`.
    """
    wiring.connect()


# --- database -------------------------------------------------------------------------


@main.group()
def db():
    """Create or migrate the database (PBEM_DATABASE_URL; SQLite in ./var by default)."""


@db.command("upgrade")
def db_upgrade():
    """Bring the database schema up to date (safe to run again)."""
    settings = config.load()
    config.protect(settings)  # a new SQLite database is created private to the service's user
    url = settings.database_url
    migrate.upgrade(url)
    click.echo(f"database at revision {migrate.current(url)}")


@db.command("current")
def db_current():
    """Print the schema revision of the database."""
    click.echo(migrate.current(config.load().database_url) or "empty")


# --- games ------------------------------------------------------------------------------


@main.group()
def game():
    """Create, join, start, play and show games."""


def _user(database: Database, email: str) -> int:
    return accounts.ensure_user(database, email)


@game.command("titles")
def game_titles():
    """List the games this server runs, with their options."""
    for name in engine.names():
        info = engine.get(name).describe()
        click.echo(f"{name}: {info['title']}, {info['min_players']}-{info['max_players']} players, "
                   f"colours {', '.join(info['colours'])}")
        for option in info["options"]:
            choices = f" ({'/'.join(option['choices'])})" if option.get("choices") else ""
            click.echo(f"    {option['name']}={option['default']}{choices}: {option['help']}")


@game.command("create")
@click.argument("title")
@click.option("--as", "email", required=True, help="email address of the player who opens the table")
@click.option("--players", type=int, default=2, show_default=True, help="seats at the table")
@click.option("--option", "pairs", multiple=True, metavar="NAME=VALUE", help="a game option (repeatable)")
@click.option("--hours", type=int, help="time per turn, in hours")
@click.option("--colour", "--color", "colour", metavar="COLOUR",
              help="the colour you play (one of the game's colours; default: whichever is left at the start)")
@click.option("--rated", is_flag=True, help="the result changes the players' ratings")
def game_create(title, email, players, pairs, hours, colour, rated):
    """Open a new table of TITLE (see `pbem game titles`) and take its first seat."""
    database = _db()
    try:
        game_id = games.create_game(database, title, _user(database, email), players, _parse_options(pairs),
                                    turn_hours=hours, colour=colour, rated=rated)
    except games.GameError as error:
        _fail(error)
    click.echo(f"game {game_id} created" + (f", you play {colour.strip().lower()}" if colour else "")
               + f"; others join with: pbem game join {game_id} --as EMAIL [--colour COLOUR]")


@game.command("join")
@click.argument("game_id", type=int)
@click.option("--as", "email", required=True)
@click.option("--colour", "--color", "colour", metavar="COLOUR",
              help="a free colour to play (`pbem game show GAME_ID` lists them; default: any)")
def game_join(game_id, email, colour):
    """Take a free seat in GAME_ID; the game starts when the table is full."""
    database = _db()
    try:
        joined = games.join_game(database, game_id, _user(database, email), colour)
    except games.GameError as error:
        _fail(error)
    if joined["started"]:
        click.echo(f"joined game {game_id} as {joined['colour']}; the game has started")
    elif joined["colour"]:
        click.echo(f"joined game {game_id} as {joined['colour']}; the seat order is drawn when it starts")
    else:
        click.echo(f"joined game {game_id}; the seat order is drawn when it starts, your colour is one of those left")


@game.command("start")
@click.argument("game_id", type=int)
@click.option("--as", "email", required=True)
def game_start(game_id, email):
    """Start GAME_ID before the table is full (only its creator)."""
    database = _db()
    try:
        games.start_game(database, game_id, _user(database, email))
    except games.GameError as error:
        _fail(error)
    click.echo(f"game {game_id} started")


@game.command("move")
@click.argument("game_id", type=int)
@click.argument("notation", nargs=-1, required=True)
@click.option("--as", "email", required=True)
@click.option("--expect", type=int, help="moves played so far, as you saw it (refused if the game moved on)")
def game_move(game_id, notation, email, expect):
    """Play one decision in GAME_ID, written in the game's notation."""
    database = _db()
    try:
        result = games.submit(database, game_id, " ".join(notation), user_id=_user(database, email),
                              source="cli", expected_version=expect)
    except games.GameError as error:
        _fail(error)
    click.echo(f"move {result.seq}: {result.notation}" + (" (game over)" if result.finished else ""))


@game.command("resign")
@click.argument("game_id", type=int)
@click.option("--as", "email", required=True)
def game_resign(game_id, email):
    """Resign from a running game."""
    database = _db()
    try:
        games.resign(database, game_id, _user(database, email), source="cli")
    except games.GameError as error:
        _fail(error)
    click.echo(f"resigned from game {game_id}")


@game.command("show")
@click.argument("game_id", type=int)
@click.option("--as", "email", help="show what this player sees (default: a spectator's view)")
@click.option("--json", "as_json", is_flag=True, help="print the whole view as JSON")
def game_show(game_id, email, as_json):
    """Show a game: players, whose turn, the last moves and your legal moves."""
    database = _db()
    try:
        data = games.view(database, game_id, _user(database, email) if email else None)
    except games.GameError as error:
        _fail(error)
    if as_json:
        click.echo(json.dumps(data, indent=1, sort_keys=True))
        return
    click.echo(f"game {data['id']}: {data['title']}, {data['status']}, {data['version']} moves")
    for seat in data["seats"]:
        marks = " (to move)" if seat["seat"] == data["to_move"] else ""
        marks += " (resigned)" if seat["resigned"] else ""
        click.echo(f"  seat {seat['seat']}: {seat['name']} [{seat['colour'] or 'any colour'}]{marks}")
    if data.get("free_colours"):
        click.echo("free colours: " + ", ".join(data["free_colours"]))
    if data["commitment"]:
        click.echo(f"seed commitment: {data['commitment']}")
    if data["seed"]:
        click.echo(f"seed: {data['seed']}")
    if data["result"]:
        click.echo(f"result: {data['result']['reason']} scores {data['result']['scores']} "
                   f"places {data['result']['ranks']}")
    for move in data.get("last_moves", []):
        click.echo(f"  {move['seq']}. {move['player']}: {move['notation']}")
    if data.get("legal_moves"):
        click.echo("your legal moves: " + ", ".join(data["legal_moves"]))


@game.command("list")
@click.option("--status", type=click.Choice(["open", "running", "finished", "abandoned"]))
def game_list(status):
    """List games."""
    for item in games.list_games(_db(), status):
        click.echo(f"{item['id']:>5}  {item['title']:<10} {item['status']:<9} "
                   f"{item['seated']}/{item['players']} seats  {item['version']} moves")


# --- archives, verification, replay --------------------------------------------------------


@main.command("export")
@click.argument("game_id", type=int)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="file (default: stdout)")
def export_cmd(game_id, output):
    """Write the archive of a finished game (JSON, see docs/archive-format.md), with the public table talk."""
    try:
        db = _db()
        raw = archive.export_bytes(db, game_id, talk.archived(db, game_id))
    except games.GameError as error:
        _fail(error)
    if output:
        Path(output).write_bytes(raw)
        click.echo(f"game {game_id} written to {output}", err=True)
    else:
        sys.stdout.buffer.write(raw)


@main.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
def import_cmd(path):
    """Check an archive completely and store it as a finished, replayable game."""
    try:
        archive.check_size(Path(path).stat().st_size)  # before reading a file that may be huge
        game_id = archive.import_archive(_db(), Path(path).read_bytes())
    except games.GameError as error:
        _fail(error)
    click.echo(f"imported as game {game_id}")


@main.command("verify")
@click.argument("game_id", type=int, required=False)
@click.option("--all", "everything", is_flag=True, help="verify every game")
def verify_cmd(game_id, everything):
    """Replay games from seed and moves and check every stored hash (run before a new engine goes live)."""
    if (game_id is None) == (not everything):
        raise click.UsageError("name one GAME_ID or give --all")
    database = _db()
    results = archive.verify_all(database) if everything else {game_id: archive.verify_game(database, game_id)}
    bad = {k: v for k, v in results.items() if v}
    for problems in bad.values():
        for problem in problems:
            click.echo(problem, err=True)
    click.echo(f"verified {len(results)} game(s): {len(results) - len(bad)} good, {len(bad)} with problems")
    if bad:
        sys.exit(1)


@main.command("replay")
@click.argument("game_id", type=int)
@click.option("--at", "seq", type=int, required=True, help="move number (0 = the start)")
@click.option("--seat", type=int, help="a seat's view (finished games only)")
def replay_cmd(game_id, seq, seat):
    """Print the view of a game after move N, from the stored snapshots."""
    try:
        data = games.view_at(_db(), game_id, seq, seat)
    except games.GameError as error:
        _fail(error)
    click.echo(json.dumps(data, indent=1, sort_keys=True))


# --- ratings --------------------------------------------------------------------------------


@main.group("ratings")
def ratings_group():
    """The players' ratings per title (openskill; only games made rated count)."""


@ratings_group.command("rebuild")
def ratings_rebuild():
    """Forget every rating and rate every finished rated game again, in the order they finished.

    Gives the numbers the games gave one by one as they finished (docs/web.md, "Ratings")."""
    rated = _read(ratings.rebuild)
    click.echo(f"rebuilt the ratings from {rated} finished rated game(s)")


# --- the service ----------------------------------------------------------------------------


@main.command("run")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--smtp-host", default="127.0.0.1", show_default=True, help="where the mail listener listens")
@click.option("--smtp-port", default=2525, show_default=True, type=int)
@click.option("--concurrency", default=2, show_default=True, type=int, help="worker processes")
def run_cmd(host, port, smtp_host, smtp_port, concurrency):
    """Migrate the database, then run web, worker, beat and mail listener until Ctrl-C."""
    from pbem import runner

    def echo(line: str) -> None:
        click.echo(line)
        sys.stdout.flush()

    sys.exit(runner.run(host, port, smtp_host, smtp_port, concurrency, echo=echo))


@main.command("worker", context_settings={"ignore_unknown_options": True})
@click.argument("celery_args", nargs=-1, type=click.UNPROCESSED)
def worker_cmd(celery_args):
    """Run a Celery worker alone (more of them on more machines share the broker's queue)."""
    os.execv(sys.executable, [sys.executable, "-m", "celery", "-A", "worker.app", "worker", "--loglevel=INFO",
                              *celery_args])


@main.command("beat", context_settings={"ignore_unknown_options": True})
@click.argument("celery_args", nargs=-1, type=click.UNPROCESSED)
def beat_cmd(celery_args):
    """Run Celery beat alone (exactly one per installation): it posts the periodic sweep."""
    schedule = config.load().data_dir / "celerybeat-schedule"
    os.execv(sys.executable, [sys.executable, "-m", "celery", "-A", "worker.app", "beat", "--loglevel=INFO",
                              f"--schedule={schedule}", *celery_args])


# --- deadlines and absences (docs/operations.md) ----------------------------------------------


@game.command("timing")
@click.argument("game_id", type=int)
@click.option("--as", "email", required=True, help="the player who opened the table")
@click.option("--hours", type=int, help="time per turn, in hours")
@click.option("--weekdays", help="ISO weekdays that count, e.g. 12345 for Monday to Friday ('' = every day)")
@click.option("--policy", type=click.Choice(["wait", "skip", "random", "resign"]), help="what a timeout does")
@click.option("--resign-after", type=int, help="missed turns in a row before the resign policy resigns a seat")
def game_timing(game_id, email, hours, weekdays, policy, resign_after):
    """Set GAME_ID's time per turn, counted weekdays and timeout policy, and show the table's clock."""
    from pbem.schedule import absences, deadlines

    database = _db()
    try:
        if any(v is not None for v in (hours, weekdays, policy, resign_after)):
            deadlines.configure(database, game_id, _user(database, email), turn_hours=hours, weekdays=weekdays,
                                policy=policy, resign_after=resign_after)
        seen = absences.table(database, game_id)
    except (games.GameError, deadlines.DeadlineError, absences.AbsenceError) as error:
        _fail(error)
    click.echo(f"game {game_id}: {seen['turn_hours'] or 'no'} hours per turn, weekdays {seen['weekdays'] or 'all'}, "
               f"policy {seen['policy']} (resign after {seen['resign_after']}), deadline {seen['deadline'] or '-'}")
    for seat in seen["seats"]:
        marks = (" late" if seat["late"] else "") + (f" away until {seat['away_until']}" if seat["away"] else "")
        click.echo(f"  seat {seat['seat']}: {seat['name']} ({seat['timezone']}, "
                   f"{seat['vacation_days']} vacation days){marks}")


@main.command("away")
@click.option("--as", "email", required=True)
@click.option("--from", "start", type=click.DateTime(), help="first moment away, UTC (default: now)")
@click.option("--until", "end", type=click.DateTime(), help="when you are back, UTC")
@click.option("--note")
@click.option("--end", "end_id", type=int, help="end absence N now")
def away_cmd(email, start, end, note, end_id):
    """Declare an absence (your deadlines stop meanwhile, at most 30 days), end one, or list yours."""
    from pbem.schedule import absences, deadlines

    database = _db()
    user_id = _user(database, email)
    try:
        if end_id is not None:
            absences.end(database, user_id, end_id)
        elif end is not None:
            absence = absences.declare(database, user_id, start or deadlines.now(), end, note)
            click.echo(f"absence {absence} recorded")
    except absences.AbsenceError as error:
        _fail(error)
    for item in absences.current(database, user_id):
        click.echo(f"  {item['id']}: {item['starts_at']} to {item['ends_at']} ({item['source']})"
                   + (f" {item['note']}" if item["note"] else ""))


# --- mail ------------------------------------------------------------------------------------


@main.group()
def mail():
    """Play by email: take in mail (stdin, IMAP, SMTP/LMTP) and send the outbox (see docs/mail.md)."""


@mail.command("ingest")
def mail_ingest():
    """Read one message from stdin and process it (for an MTA pipe or procmail)."""
    from pbem.mail import inbound

    from pbem.db import unavailable

    raw = sys.stdin.buffer.read()
    settings = config.load()
    database = Database(settings.database_url)
    try:
        result = inbound.receive(database, raw, settings)
    except Exception as error:
        if unavailable(error):  # the MTA keeps the message and tries again on EX_TEMPFAIL
            click.echo(f"pbem mail ingest: not stored, try again later ({type(error).__name__})", err=True)
            sys.exit(75)
        # Not stored, and trying again would fail the same way: EX_SOFTWARE, which the MTA does not retry.
        click.echo(f"pbem mail ingest: not stored ({type(error).__name__})", err=True)
        sys.exit(70)
    finally:
        database.dispose()
    click.echo(f"{result.outcome}: {result.detail.splitlines()[0] if result.detail else ''}".rstrip(": "))


@mail.command("poll")
@click.option("--url", envvar="PBEM_IMAP_URL", required=True, help="imap[s]://USER:PASSWORD@HOST[:PORT]/FOLDER")
@click.option("--every", type=int, help="poll again every N seconds (default: once)")
def mail_poll(url, every):
    """Take new mail from an IMAP mailbox (PBEM_IMAP_URL), once or every N seconds."""
    import time

    from pbem.mail import imap

    from pbem.db import unavailable

    settings = config.load()
    database = Database(settings.database_url)
    try:
        while True:
            try:
                results = imap.poll(database, settings, url)
            except Exception as error:
                if not (every and unavailable(error)):
                    raise
                click.echo(f"the database is away ({type(error).__name__}): the rest waits for the next poll",
                           err=True)
            else:
                click.echo(f"{len(results)} message(s) taken")
            if not every:
                break
            time.sleep(every)
    finally:
        database.dispose()


@mail.command("listen")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=2525, show_default=True, type=int)
@click.option("--lmtp", is_flag=True, help="speak LMTP instead of SMTP (for an MTA in front)")
def mail_listen(host, port, lmtp):
    """Run the SMTP (or LMTP) listener in the foreground until Ctrl-C."""
    import threading

    from pbem.mail import listener

    settings = config.load()
    database = Database(settings.database_url)
    controller = listener.start(database, settings, host, port, lmtp=lmtp)
    click.echo(f"pbem: {'LMTP' if lmtp else 'SMTP'} on {host}:{controller.port} for @{settings.mail_domain}")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        controller.stop()
        database.dispose()


@mail.command("send")
def mail_send():
    """Send every outbox row still pending (PBEM_SMTP_URL; the worker does this by itself)."""
    from pbem.mail import outbound

    counts = _read(lambda database: outbound.deliver_pending(database, config.load()))
    click.echo(", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "nothing to send")


@mail.command("failed")
@click.option("--limit", default=100, show_default=True, help="how many of the newest to list")
def mail_failed(limit):
    """List the outbox rows that ended as failed (refused for good, or not buildable), with the reason."""
    from pbem.mail import outbound

    rows = _read(lambda database: outbound.failed_rows(database, limit))
    if not rows:
        click.echo("no failed mail")
    for row in rows:
        click.echo(f"{row.id}\t{row.created_at:%Y-%m-%d %H:%M}\t{row.kind}\t{row.recipient}\t{row.last_error}")


@mail.command("unread")
@click.option("--limit", default=100, show_default=True, help="how many of the newest to list")
def mail_unread(limit):
    """List the inbound mails that could not be read (malformed, too large) or whose reading failed, with the reason."""
    from pbem.mail import inbound

    rows = _read(lambda database: inbound.unread_rows(database, limit))
    if not rows:
        click.echo("no unread mail")
    for row in rows:
        reason = (row.detail or "").strip().splitlines()
        click.echo(f"{row.id}\t{row.received_at:%Y-%m-%d %H:%M}\t{row.outcome}\t{row.sender or '-'}\t"
                   f"{reason[-1] if reason else ''}")



@main.group()
def admin():
    """The site operator's acts on what players wrote (the web operator area is another door)."""


@admin.group("message")
def admin_message():
    """Reported table talk: list the reports, hide a message."""


@admin_message.command("reports")
@click.option("--limit", default=100, show_default=True, help="how many of the newest reports to list")
def admin_message_reports(limit):
    """List the reported messages, newest report first: message, game, author seat, text (or who hid it), reports."""
    rows = _read(lambda database: talk.reports(database, limit))
    if not rows:
        click.echo("no reported messages")
    by_message: dict[int, list] = {}
    for report, message in rows:
        by_message.setdefault(message.id, [message]).append(report)
    for message, *reports in by_message.values():
        shown = (f"hidden by user {message.hidden_by} at {message.hidden_at:%Y-%m-%d %H:%M}: {message.hidden_reason}"
                 if message.hidden_at is not None else message.body)
        click.echo(f"message {message.id}\tgame {message.game_id}\tseat {message.seat}\t{shown}")
        for report in reports:
            click.echo(f"  reported {report.created_at:%Y-%m-%d %H:%M} by user {report.user_id}: {report.reason}")


@admin_message.command("hide")
@click.argument("message_id", type=int)
@click.option("--by", "email", required=True, help="the operator who hides it (kept with the message)")
@click.option("--reason", required=True, help="why, in a few words (kept with the message)")
def admin_message_hide(message_id, email, reason):
    """Hide a message: kept, marked with who hid it, when and why; no player reads its text any more."""
    database = _db()
    try:
        talk.hide(database, message_id, _user(database, email), reason)
    except talk.TalkError as error:
        _fail(error)
    finally:
        database.dispose()
    click.echo(f"message {message_id} hidden")


if __name__ == "__main__":
    main()
