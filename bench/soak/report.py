"""The soak's figures: one `name: value unit` line each, printed after the checks.

`Figures` collects named figures in the order they are added and prints them; each
function below adds one group (the play, the mail, the faults and submissions, the table
talk, the bot seats, the processes, the bots' requests, the Celery tasks, the machine), reading what the run left:
the database, the ledger, the faults' counts, the meter's samples and the workers' logs.
A new figure is one more `figures.add(name, value, unit)` in the group it belongs to.
docs/operations.md ("Soak") says how to read them. Nothing here is a check: a figure
never fails the run.
"""

from __future__ import annotations

import collections
import os
import re
from datetime import timedelta

from sqlalchemy import func, select

from bench.soak.faults import COUNTED
from bench.soak.world import utc
from pbem.models import Game, OutboundMail


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Figures:
    """Named figures with their units, in the order they were added."""

    def __init__(self):
        self.items: list[tuple[str, object, str]] = []

    def add(self, name: str, value, unit: str) -> None:
        self.items.append((name, value, unit))

    def lines(self) -> list[str]:
        """`name: value unit`, floats with one decimal."""
        return [f"{name}: {value:.1f} {unit}" if isinstance(value, float) else f"{name}: {value} {unit}"
                for name, value, unit in self.items]

    def print(self) -> None:
        for line in self.lines():
            print(line)


def collect(soak, log: dict[int, list], drain_s: float) -> Figures:
    """Every figure of the run `soak` (bench.soak.run.Soak) with its move log and drain time."""
    figures = Figures()
    play(figures, soak, log, drain_s)
    mail(figures, soak, log)
    faults_and_submissions(figures, soak)
    talk(figures, soak)
    bot_seats(figures, soak, log)
    processes(figures, soak, log)
    requests(figures, soak)
    tasks(figures, soak)
    machine(figures)
    return figures


def play(figures: Figures, soak, log: dict[int, list], drain_s: float) -> None:
    """Time, games and moves: how much was played, how fast, by door, title and player count."""
    db = soak.world.db
    minutes = (soak.play_ended - soak.play_started) / 60
    start, end = utc(soak.play_started), utc(soak.play_ended)
    rows = [row for game in log.values() for row in game]
    in_play = [row for row in rows if start <= row.created_at <= end]
    with db.sessions() as s:
        finished = list(s.scalars(select(Game.finished_at).where(Game.finished_at.is_not(None))))
        started = s.scalar(select(func.count()).select_from(Game).where(Game.started_at.is_not(None)))
    # Sustained: from the first move (before it, the tables are being opened and joined) to the end of play.
    first = min((row.created_at for row in in_play), default=end)
    steady = max((end - first).total_seconds() / 60, 1e-9)
    per_minute = collections.Counter(int((row.created_at - first).total_seconds() // 60) for row in in_play)
    full = [per_minute.get(i, 0) for i in range(int(steady))]
    figures.add("play_time", minutes, "min")
    figures.add("drain_time", drain_s, "s")
    figures.add("games_in_flight_target", soak.args.games, "games")
    figures.add("games_started", started, "games")
    figures.add("games_finished", len(finished), "games")
    figures.add("warmup_time", (first - start).total_seconds(), "s (opening the first tables, to the first move)")
    figures.add("games_per_minute", sum(1 for t in finished if first <= t <= end) / steady, "games/min")
    figures.add("moves_applied", len(rows), "moves")
    figures.add("moves_per_minute", len(in_play) / steady, "moves/min")
    if full:
        figures.add("moves_per_minute_slowest_whole_minute", min(full), "moves/min")
        figures.add("moves_per_minute_fastest_whole_minute", max(full), "moves/min")
    for source, n in sorted(collections.Counter(r.source for r in rows).items()):
        figures.add(f"moves_applied.{source}", n, "moves")
    with db.sessions() as s:
        titles = dict(s.execute(select(Game.id, Game.title)).all())
        variants = collections.Counter(
            (title, players) for title, players in s.execute(select(Game.title, Game.players)
                                                              .where(Game.started_at.is_not(None))))
    for title, n in sorted(collections.Counter(titles[r.game_id] for r in rows).items()):
        figures.add(f"moves_applied.{title}", n, "moves")
    for (title, players), n in sorted(variants.items()):
        figures.add(f"games_started.{title}.{players}p", n, "games")


def mail(figures: Figures, soak, log: dict[int, list]) -> None:
    """Mails by kind, what the sink received, and how long a turn notification took after its move."""
    with soak.world.db.sessions() as s:
        turns = s.execute(select(OutboundMail.id, OutboundMail.game_id, OutboundMail.seq, OutboundMail.sent_at)
                          .where(OutboundMail.kind == "turn", OutboundMail.seq > 0,
                                 OutboundMail.sent_at.is_not(None))).all()
        by_kind = dict(s.execute(select(OutboundMail.kind, func.count()).group_by(OutboundMail.kind)).all())
    times = {(row.game_id, row.seq): row.created_at for game in log.values() for row in game}
    timed = [(row_id, times[(g, q)], (sent - times[(g, q)]).total_seconds())
             for row_id, g, q, sent in turns if (g, q) in times]
    latency = [seconds for _, _, seconds in timed]
    for kind, n in sorted(by_kind.items()):
        figures.add(f"mails_sent.{kind}", n, "mails")
    figures.add("mails_received_by_sink", soak.players.mail_count, "mails")
    figures.add("turn_notification_latency_p50", percentile(latency, 0.5) * 1000, "ms")
    figures.add("turn_notification_latency_p99", percentile(latency, 0.99) * 1000, "ms")
    figures.add("turn_notification_latency_max", max(latency, default=float("nan")) * 1000, "ms")
    # The same for the moves made while no fault was in force nor being recovered from (from a
    # fault's start to --fault-grace-s after its end; and not the mails a killed worker was
    # sending, which wait for their claim to expire), so the tail of the faults and that of a
    # healthy service can be read apart.
    grace = timedelta(seconds=soak.args.fault_grace_s)
    spans = [(utc(w["start"]), utc(w["end"]) + grace) for w in soak.faults.windows]
    calm = [seconds for row_id, at, seconds in timed
            if row_id not in soak.faults.sending_at_kill and not any(start <= at <= end for start, end in spans)]
    figures.add("turn_notification_latency_outside_faults_count", len(calm), "turns")
    figures.add("turn_notification_latency_outside_faults_p50", percentile(calm, 0.5) * 1000, "ms")
    figures.add("turn_notification_latency_outside_faults_p99", percentile(calm, 0.99) * 1000, "ms")
    stages(figures, soak, times)


def stages(figures: Figures, soak, times: dict) -> None:
    """Where a turn mail's time went, stage by stage (p50 and p99 of each), so a regression shows where:
    commit (the move's row) -> job picked up (the first claim) -> picture ready -> handed to SMTP."""
    with soak.world.db.sessions() as s:
        rows = s.execute(select(OutboundMail.game_id, OutboundMail.seq, OutboundMail.picked_at,
                                OutboundMail.drawn_at, OutboundMail.sent_at)
                         .where(OutboundMail.kind == "turn", OutboundMail.seq > 0, OutboundMail.sent_at.is_not(None),
                                OutboundMail.picked_at.is_not(None), OutboundMail.drawn_at.is_not(None))).all()
    spans = collections.defaultdict(list)
    for game_id, seq, picked, drawn, sent in rows:
        committed = times.get((game_id, seq))
        if committed is None:
            continue
        spans["commit_to_pickup"].append((picked - committed).total_seconds())
        spans["pickup_to_picture"].append((drawn - picked).total_seconds())
        spans["picture_to_smtp"].append((sent - drawn).total_seconds())
    for stage in ("commit_to_pickup", "pickup_to_picture", "picture_to_smtp"):
        figures.add(f"stage.{stage}_p50", percentile(spans[stage], 0.5) * 1000, "ms")
        figures.add(f"stage.{stage}_p99", percentile(spans[stage], 0.99) * 1000, "ms")


def faults_and_submissions(figures: Figures, soak) -> None:
    """How often each fault was injected; what the bots submitted, by door and kind."""
    for name in COUNTED:
        figures.add(f"faults.{name}", soak.faults.counts[name], "times")
    for (door, kind), n in sorted(collections.Counter((x.door, x.kind) for x in soak.ledger.sent).items()):
        figures.add(f"submitted.{door}.{kind}", n, "submissions")


def talk(figures: Figures, soak) -> None:
    """What the bots wrote at their tables, by door and kind (public, private, note), and how much of it was posted."""
    written = collections.Counter((x.door, x.kind) for x in soak.ledger.talk)
    posted = collections.Counter((x.door, x.kind) for x in soak.ledger.talk if x.outcome == "posted")
    for (door, kind), n in sorted(written.items()):
        unit = "notes" if kind == "note" else "messages"
        figures.add(f"talk_written.{door}.{kind}", n, unit)
        figures.add(f"talk_posted.{door}.{kind}", posted[(door, kind)], unit)


def bot_seats(figures: Figures, soak, log: dict[int, list]) -> None:
    """The tables with bots (issue 37): how many, their bots' moves, and the most bot jobs posted and not done at
    once (sampled every second; pbem.players.bot_seats.SITE_BUDGET bounds it)."""
    games = soak.players.bot_games()
    figures.add("bots.tables", len(games), "tables")
    figures.add("bots.moves", sum(1 for g in games for row in log.get(g, []) if row.source == "bot"), "moves")
    figures.add("bots.queue_max", soak.ledger.bot_queue_max(), "jobs (posted and not done, at once)")
    figures.add("bots.queue_samples", len(soak.ledger.bot_queue), "samples")


def processes(figures: Figures, soak, log: dict[int, list]) -> None:
    """Peak RSS of every process of every part; CPU seconds by part, of PostgreSQL and of the soak; per move."""
    parts, meter = soak.world.parts, soak.world.meter
    for name in parts:  # every process: the part's main process, then its children by pid
        keys = sorted((k for k in meter.hwm if k[0] == name), key=lambda k: (meter.roles.get(k) != "main", k[1]))
        children = 0
        for key in keys:
            if meter.roles.get(key) == "main":
                label = "main" if key[1] == parts[name].pid else f"main_pid{key[1]}"
            else:
                children += 1
                label = f"child{children}"
            figures.add(f"peak_rss.{name}.{label}", meter.hwm[key] / 1024, f"MB (pid {key[1]})")
    cpu = {name: sum(v for k, v in meter.cpu.items() if k[0] == name) for name in parts}
    cpu["postgres_backends"] = sum(meter.pg_cpu.values())
    cpu["soak_bots_and_sink"] = soak.soak_cpu
    for name, seconds in cpu.items():
        figures.add(f"cpu.{name}", seconds, "s")
    moves = sum(len(game) for game in log.values())
    figures.add("cpu_per_move", sum(cpu.values()) / max(1, moves) * 1000, "ms")


def requests(figures: Figures, soak) -> None:
    """The bots' request latencies, by kind of request (method and route, or SMTP command or reply)."""
    for what, values in sorted(soak.client.latency.items()):
        name = "client." + re.sub(r"[^A-Za-z0-9_.]+", "_", what).strip("_")
        figures.add(f"{name}.count", len(values), "requests")
        figures.add(f"{name}.p50", percentile(values, 0.5) * 1000, "ms")
        figures.add(f"{name}.p99", percentile(values, 0.99) * 1000, "ms")


def tasks(figures: Figures, soak) -> None:
    """The Celery tasks' runs and run times, from the workers' logs."""
    found = collections.defaultdict(list)
    for name in ("worker-a", "worker-b"):
        for path in soak.world.parts[name].logs:
            for task, took in re.findall(r"Task (pbem\.\w+)\[[^\]]+\] succeeded in ([0-9.]+)s",
                                         path.read_text(errors="replace")):
                found[task].append(float(took))
    for task, values in sorted(found.items()):
        figures.add(f"task.{task}.runs", len(values), "runs")
        figures.add(f"task.{task}.total", sum(values), "s")
        figures.add(f"task.{task}.p50", percentile(values, 0.5) * 1000, "ms")


def machine(figures: Figures) -> None:
    """The machine the figures were measured on (shared: read the CPU figures rather than the wall-clock ones)."""
    figures.add("machine.cores", os.cpu_count(), "cores (shared with other work)")
    figures.add("machine.load_average_1min_at_end", os.getloadavg()[0], "")
