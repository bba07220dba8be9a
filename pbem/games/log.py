"""The tamper-evident move log: seeds, commitments, chain hashes and the replay that checks them.

Every move record carries the hash of the state after it and a chain hash over the
previous chain hash and every field of the record, so that changing any byte of a move,
its seat, notation, source or time breaks the chain from that move on. `check_log` is the
one replay used by `pbem verify` and by archive import.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Iterator

import engine
from engine.core import IllegalMove, Move, canonical_json, sha256_hex
from pbem.i18n import N_
from pbem.reasons import Refusal

CHAIN_PREFIX = "pbem-chain-v1:"
RESIGN = "_resign"  # a log record that is not an engine move: the seat resigned


class LogError(Refusal):
    """A move log that does not check out; the message names the move and what is wrong.

    An English message marked for the catalogues (`N_`) and its values, as a GameError's: the
    archive upload page shows `error.text(language)`, `pbem verify` the English."""


def new_seed() -> int:
    """A fresh 128-bit secret seed."""
    return secrets.randbits(128)


def seed_hex(seed: int) -> str:
    return f"{seed:032x}"


def commitment_of(seed_text: str) -> str:
    """The public commitment to a seed: SHA-256 of its 32 lowercase hex digits."""
    return sha256_hex(seed_text)


def genesis(commitment: str) -> str:
    return sha256_hex(CHAIN_PREFIX + commitment)


def format_time(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")


def chain_hash(prev: str, seq: int, seat: int, move: Any, notation: str, source: str, at: str,
               state_hash: str) -> str:
    """The chain hash of one record: SHA-256 over the previous chain hash and every field."""
    return sha256_hex(canonical_json({
        "prev": prev, "seq": seq, "seat": seat, "move": move, "notation": notation,
        "source": source, "at": at, "state_hash": state_hash,
    }))


@dataclass(frozen=True)
class Record:
    """One move of the log, as stored and as archived."""

    seq: int
    seat: int
    move: Any  # decoded JSON of the Move, or [RESIGN, []]
    notation: str
    source: str
    at: str
    state_hash: str
    chain_hash: str

    def to_json(self) -> dict:
        return {"seq": self.seq, "seat": self.seat, "move": self.move, "notation": self.notation,
                "source": self.source, "at": self.at, "state_hash": self.state_hash,
                "chain_hash": self.chain_hash}


def is_resignation(move: Any) -> bool:
    return isinstance(move, list) and len(move) == 2 and move[0] == RESIGN


@dataclass
class Replayed:
    """What one checked record produced: the state after it and the seats resigned so far."""

    record: Record
    state: Any
    state_json: str
    resigned: frozenset


def check_log(rules: engine.Rules, players: int, options: dict, seed_text: str, commitment: str,
              records: Iterable[Record]) -> Iterator[Replayed]:
    """Replay records from the seed, checking every hash; yields each record's state.

    Raises LogError naming the first record that does not check out.
    """
    if commitment_of(seed_text) != commitment:
        raise LogError(N_("The seed does not match its commitment: SHA-256 of the seed differs."))
    try:
        state = rules.setup(players, options, int(seed_text, 16))
    except (ValueError, engine.OptionError) as error:
        raise LogError(N_("The game cannot be set up again: %(reason)s"), reason=error) from None
    prev = genesis(commitment)
    resigned: set[int] = set()
    expected_seq = 1
    for record in records:
        where = {"seq": record.seq, "seat": record.seat, "notation": repr(record.notation)}  # in each message
        if record.seq != expected_seq:
            raise LogError(N_("Move %(seq)s is missing: the next record is numbered %(next)s."), seq=expected_seq,
                           next=record.seq)
        if rules.is_over(state) and not is_resignation(record.move):
            raise LogError(N_("Move %(seq)s (seat %(seat)s, %(notation)s) comes after the end of the game."), **where)
        if is_resignation(record.move):
            if record.seat in resigned or not 0 <= record.seat < players:
                raise LogError(N_("Move %(seq)s (seat %(seat)s, %(notation)s): seat %(seat)s cannot resign here."),
                               **where)
            resigned.add(record.seat)
        else:
            if rules.to_move(state) != record.seat:
                raise LogError(N_("Move %(seq)s (seat %(seat)s, %(notation)s): it was seat %(turn)s's turn, not seat "
                                  "%(seat)s's."), turn=rules.to_move(state), **where)
            try:
                move = Move.from_json(record.move)
                if rules.notation(state, move) != record.notation:
                    raise LogError(N_("Move %(seq)s (seat %(seat)s, %(notation)s): the notation does not match the "
                                      "move (the move reads %(reads)s)."), reads=repr(rules.notation(state, move)),
                                   **where)
                state = rules.apply(state, move)
            except IllegalMove as error:
                raise LogError(N_("Move %(seq)s (seat %(seat)s, %(notation)s) is not legal in the replayed position: "
                                  "%(reason)s"), reason=error, **where) from None
        state_json = canonical_json(rules.state_to_json(state))
        actual = sha256_hex(state_json)
        if actual != record.state_hash:
            raise LogError(N_("Move %(seq)s (seat %(seat)s, %(notation)s): the state hash does not match the replay "
                              "(stored %(stored)s..., replay gives %(actual)s...)."), stored=record.state_hash[:12],
                           actual=actual[:12], **where)
        expected_chain = chain_hash(prev, record.seq, record.seat, record.move, record.notation,
                                    record.source, record.at, record.state_hash)
        if expected_chain != record.chain_hash:
            raise LogError(N_("Move %(seq)s (seat %(seat)s, %(notation)s): the chain hash does not match: this record "
                              "or one before it was changed."), **where)
        prev = record.chain_hash
        expected_seq += 1
        yield Replayed(record, state, state_json, frozenset(resigned))

