"""schemathesis against the OpenAPI document: no generated request may cause a server error.

Bounded: 12 examples per operation and mode (about 300 requests per database), with a valid token
and a few real games so that generated ids also reach games that exist.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from pbem import accounts, games
from tests.web.conftest import make_user


@pytest.fixture
def web_schema(app, db):
    ana = make_user(db, "ana@example.org")
    ben = make_user(db, "ben@example.org")
    games.create_game(db, "counters", ana, 3)
    running = games.create_game(db, "counters", ana, 2, {"pile": 5})
    games.join_game(db, running, ben)
    finished = games.create_game(db, "counters", ana, 2, {"pile": 5})
    games.join_game(db, finished, ben)
    while games.view(db, finished)["status"] == "running":
        games.submit(db, finished, "take 2" if games.view(db, finished)["board"]["pile"] > 1 else "take 1",
                     seat=games.view(db, finished)["to_move"])
    app.config["SCHEMATHESIS_TOKEN"] = accounts.create_api_token(db, ana, "fuzz")
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)


EXAMPLES = 12  # per operation and mode: 13 operations x 2 modes x 12 = 312 requests per database


def test_no_generated_request_makes_a_server_error(web_schema, app):
    headers = {"Authorization": f"Bearer {app.config['SCHEMATHESIS_TOKEN']}"}
    operations = [result.ok() for result in web_schema.get_all_operations()]
    assert len(operations) >= 12
    seen = set()
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                      suppress_health_check=list(HealthCheck))
            def check(case):
                response = case.call(headers=headers)
                seen.add(response.status_code)
                assert response.status_code < 500, (case.method, case.formatted_path, case.body, response.text)
                case.validate_response(response, checks=[not_a_server_error])

            try:
                check()
            except Unsatisfiable:
                if mode is GenerationMode.POSITIVE:
                    raise  # an operation with no inputs has nothing negative to generate; that is fine
    assert {200, 404} <= seen  # the requests reached real games as well as missing ones
