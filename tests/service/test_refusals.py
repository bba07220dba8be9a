"""The service's refusals in the reader's language (issue 24).

A refusal (`pbem.reasons.Refusal`: GameError, AccountError, ArchiveError, ...) is raised with an
English message marked for the catalogues and its values: `str(error)` is the English sentence
the service always gave (logs, the CLI, bots), `error.text(language)` the sentence in Dutch,
German or French. An illegal move keeps the engine's error and reads as its reason; a reason
inside a sentence (an engine's refused option in an archive) is translated with it.
"""

from __future__ import annotations

import json

import pytest

import engine
from engine.core import IllegalMove
from pbem import accounts, games, reasons
from pbem.games import archive
from tests.service.test_archive import finished_game
from tests.service.test_games import play_known_seed, users


def refusal(call, *args, **kwargs) -> games.GameError:
    with pytest.raises(games.GameError) as error:
        call(*args, **kwargs)
    return error.value


def test_a_refusal_is_the_english_sentence_and_its_translations(db):
    game_id, by_seat = play_known_seed(db, 2)
    error = refusal(games.submit, db, game_id, "take 1", user_id=by_seat[1])
    assert isinstance(error, games.NotYourTurnError) and error.code == "not_your_turn"
    assert str(error) == f"It is not your turn in game {game_id}: Player 0 is to move."
    assert error.text("en") == str(error) and error.text("es") == str(error) and error.text(None) == str(error)
    assert error.text("nl") == f"Je bent niet aan de beurt in partij {game_id}: Player 0 is aan zet."
    assert error.text("de-AT") == f"Du bist in Partie {game_id} nicht am Zug: Player 0 ist am Zug."
    assert error.text("fr") == f"Ce n'est pas votre tour dans la partie {game_id} : c'est à Player 0 de jouer."
    assert reasons.reason(error, "de") == error.text("de")  # one call for every kind of refusal

    error = refusal(games.submit, db, game_id, "take 1", user_id=by_seat[0], expected_version=3)
    assert str(error) == f"Stale position: this was sent for move 4, but game {game_id} is at move 1 now."
    assert error.text("de") == (f"Veraltete Stellung: Das wurde für Zug 4 geschickt, aber Partie {game_id} ist "
                                "jetzt bei Zug 1.")


def test_an_illegal_move_keeps_the_engines_error_and_reads_as_its_reason(db):
    ids = users(db, 2)
    game_id = games.create_game(db, "tongiaki", ids[0], 2, {})
    games.join_game(db, game_id, ids[1])
    mover = next(uid for uid in ids if games.view(db, game_id, uid)["legal_moves"])
    error = refusal(games.submit, db, game_id, "place Tonga 9", user_id=mover)
    assert isinstance(error, games.IllegalMoveError) and isinstance(error.cause, IllegalMove)
    assert str(error) == "Tonga has beaches 1 to 6; '9' is not one of them."
    assert error.text("de") == "Tonga hat die Strände 1 bis 6; '9' ist keiner davon."
    assert error.text("fr") == reasons.reason(error.cause, "fr")
    assert error.text("fr") == "Tonga a les plages 1 à 6 ; '9' n'en fait pas partie."
    # A refused option of a new table: the engine's reason too.
    error = refusal(games.create_game, db, "tapaono", ids[0], 2, {"markers": 0})
    assert isinstance(error.cause, engine.OptionError) and str(error) == "Option markers must be between 1 and 200."
    assert error.text("nl") == reasons.reason(error.cause, "nl") != str(error)


def test_a_games_status_is_told_in_a_whole_sentence_of_each_language(db):
    ids = users(db, 3)
    game_id = games.create_game(db, "counters", ids[0], 3, {})
    games.leave_game(db, game_id, ids[0])  # the table is left empty: abandoned
    error = refusal(games.join_game, db, game_id, ids[1])
    assert str(error) == f"Game {game_id} is abandoned; only open games can be joined."
    assert error.text("de") == f"Partie {game_id} wurde abgebrochen; setzen kann man sich nur an offene Partien."
    game_id, by_seat = finished_game(db)
    error = refusal(games.resign, db, game_id, by_seat[0])
    assert str(error) == f"Game {game_id} is finished; only a running game can be resigned."
    assert error.text("nl") == f"Partij {game_id} is afgelopen; alleen een lopende partij kun je opgeven."
    error = refusal(games.start_game, db, game_id, by_seat[0])
    assert error.text("fr") == f"La partie {game_id} est terminée ; seule une partie ouverte peut être lancée."


def test_an_archives_refusal_translates_the_reason_inside_it(db):
    game_id, _ = finished_game(db)
    data = json.loads(archive.export_bytes(db, game_id))
    data["moves"].pop(2)
    error = refusal(archive.import_archive, db, json.dumps(data).encode())
    assert str(error) == "Move 3 is missing: the next record is numbered 4."  # the move log's, as before
    assert error.text("de") == "Zug 3 fehlt: Der nächste Eintrag hat die Nummer 4."
    data = json.loads(archive.export_bytes(db, game_id))
    data["game"].update(title="tapaono", options={"markers": 0})
    error = refusal(archive.import_archive, db, json.dumps(data).encode())
    assert str(error) == "The archive's game settings are not valid here: Option markers must be between 1 and 200."
    assert error.text("fr") == ("Les réglages de la partie dans l'archive ne sont pas valides ici : L'option markers "
                                "doit être comprise entre 1 et 200.")
    error = refusal(archive.export_game, db, games.create_game(db, "counters", users(db, 1)[0], 2, {}))
    assert error.text("nl").startswith("Partij ") and "is nog open: alleen afgelopen partijen" in error.text("nl")


def test_an_accounts_refusal_is_translated_too(db):
    with pytest.raises(accounts.AccountError) as error:
        accounts.normalize_email("not an address")
    assert str(error.value) == "'not an address' is not an email address."
    assert error.value.text("de") == "'not an address' ist keine E-Mail-Adresse."
    with pytest.raises(accounts.AccountError) as error:
        accounts.reset_password(db, "forged", "a long password", "secret")
    assert str(error.value) == "This reset link is not valid."
    assert error.value.text("fr") == "Ce lien pour choisir un mot de passe n'est pas valide."


def _finished(title: str, seed: int, options: dict | None = None):
    """A random game of a title played to its end with the engine; returns (rules, final state)."""
    import random

    rules = engine.get(title)
    state = rules.setup(rules.min_players, rules.check_options(options or {}), seed)
    chooser = random.Random(seed)
    while rules.to_move(state) is not None:
        state = rules.apply(state, chooser.choice(rules.legal_moves(state)))
    return rules, state


@pytest.mark.parametrize("title, options, german", [
    ("discovery", {}, "Die letzte Karte ist angelegt."),
    ("tongiaki", {}, None),
    ("tapaono", {"mode": "free", "markers": 3, "stars_to_win": 1}, None),
])
def test_a_finished_games_reason_is_stored_in_english_and_read_in_each_language(title, options, german):
    rules, state = _finished(title, 11, options)
    result = rules.result(state)
    stored = result.to_json()
    assert stored["reason"] == str(result.message)  # results and archives keep the English sentence
    assert "message" not in stored
    assert reasons.result_reason(rules, state, stored, "en") == stored["reason"]
    translated = {language: reasons.result_reason(rules, state, stored, language) for language in ("nl", "de", "fr")}
    assert len({stored["reason"], *translated.values()}) == 4, translated  # four languages, four sentences
    if german:
        assert translated["de"] == german
    # A result read back from JSON (an old archive's) with no final state: the English as it is.
    assert reasons.result_reason(rules, None, stored, "de") == stored["reason"]


def test_a_resignation_is_stored_in_english_and_read_in_each_language(db):
    game_id, by_seat = play_known_seed(db, 2)
    games.resign(db, game_id, by_seat[0])
    stored = games.view(db, game_id)["result"]
    assert stored["reason"] == "Resigned: Player 0."
    assert games.view(db, game_id, language="de")["result"]["reason"] == "Aufgegeben: Player 0."
    assert games.view(db, game_id, language="nl")["result"]["reason"] == "Opgegeven: Player 0."
    assert games.view(db, game_id, language="fr")["result"]["reason"] == "Abandon : Player 0."
    assert games.view(db, game_id)["result"]["reason"] == "Resigned: Player 0."  # stored as it was
