"""The soak test: the whole service under load, run the way a real site runs it (issue 10).

Usage: python bench/soak.py [--minutes 10 | --moves N] [--games 200] [--folder DIR] [options]

It starts, on loopback and free ports only: a scratch PostgreSQL database (made, migrated,
dropped at the end), a private redis-server as the Celery broker, gunicorn with two workers
(`pbem.web:create_app()`), two Celery workers and beat (the command lines of
`pbem.runner.plan`), the SMTP listener (`python -m pbem.runner mail-listener`) and an SMTP
sink that receives every outgoing mail. Each process writes its output to a file in the run
folder, which is kept.

Bots then play games of all three titles, all player counts and the engines' option presets
through the three doors: the JSON API (bearer token), the web pages (log in, GET the game
page, POST its move form with the CSRF token) and mail (reply to the turn notification that
arrived in the sink, through the SMTP listener). Each turn notification in the sink wakes
the player it is for. Setting up users (verified addresses, API tokens, passwords) goes
directly through pbem; tables are opened and joined through the doors too. At least
`--games` games are kept in flight; a game that ends is replaced.

A share of the tables (`--bot-tables`, 0.25) is a player alone with bots of level easy (issue 37),
opened through each door in turn and not rated; the worker's `pbem.play_bot` plays their seats,
and the bot jobs posted and not done are sampled every second.

Faults injected while it runs: one Celery worker killed with SIGKILL (its process group) and
restarted; the broker paused (SIGSTOP/SIGCONT of the private redis); a share of the mails
delivered twice (same bytes, same Message-ID; one after the other, or at the same time); a
share of the web move forms POSTed twice (one after the other, or at the same time). Bots
also send illegal moves and moves for a stale position, which must be refused with a reason.

The bots talk at their tables through their own doors (issue 34; `--talk-rate`, a chance per
decision): to the whole table, privately to one other seat, or a note for themselves, each
text with a unique marker the ledger keeps with its game, its sender and its recipients (user
ids and addresses). An API bot posts `/messages` or `/notes`; a web bot posts the talk panel's
forms; a mail bot writes under its move after `--- message ---`, mails `/say` or `/note` to its
command address, or answers a message mail through its talk key. With the same chance they
read their table's talk and another table's through their doors; spectators read it
anonymously; the archive of a game that ended is downloaded by one of its players, a bot of
another table and nobody. Half of the tables let spectators read the public messages.

After a drain period (the sweep must catch up) it checks and prints, one line per check:
`pbem verify --all`; per door, moves submitted = applied + refused with a reason, compared
with the move log by source and idempotency key, duplicates never applied twice; exactly one
turn notification per turn in the sink; no outbox row left unsent; no seed of a running game
and no hidden deck order in any captured mail, API answer, page or log line; every private
message and note found only in what its sender and recipients read (their mails, their bots'
pages and API answers), never in a log line nor in what another reader or nobody read, public
messages only at their table (or where spectators may read them), each stored once, and every
door talking; no ERROR or Traceback in the process logs other than those the faults provoke;
the finished rated games rated once; the bot jobs posted and not done never above
`bot_seats.SITE_BUDGET`, every table with bots moved by its bots, no bot turn undone after the
drain (bots_budget).
Then the figures, as `name: value unit` lines. Exit status 1 when a check fails.
docs/operations.md ("Soak") explains what it searches for and how to read the figures.

Where things are:
- `world`: the processes and the scratch database; starting, stopping and measuring them.
- `doors`: the client side of the JSON API, the web pages and SMTP (requests, timing, capture).
- `drivers`: the bots (users, tables, decisions, playing through each door, reading their mail).
- `talk`: the bots' table talk (writing through each door, reading, what each door answered).
- `faults`: the worker kill, the broker pause, mails and forms sent twice.
- `ledger`: what the bots submitted and wrote and what became of it, everything captured (with
  who read it), the dice.
- `checks`: the checks, one line each; `report`: the figures, one line each.
- `run`: one run from start to end, and the command line; `celery_child`: the soak's workers
  with --claim-timeout.
The set-up helpers the tests use too (ports, process groups, Redis, the SMTP sink, reading
and writing mail, scratch databases) are in tests/support/.

This file imports nothing: `python -m bench.soak.celery_child` (a Celery worker) loads it too.
"""
