"""Random, malformed and hostile bodies for every POST endpoint: always a 4xx with a sentence or a 2xx, never a 500."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PIN = "2468"
KEYS = ["kind", "seat", "dice", "card", "cards", "pin", "players", "leader", "demo", "seed", "game", "colour", "value"]
KINDS = ["press", "roll", "roll_random", "choose", "reveal", "undo", "<script>", ""]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True),
                    st.text(max_size=30), st.sampled_from(KINDS + [PIN, "white", "black", "gray", "giant-panda"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                       st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
                      max_leaves=12)
bodies = st.one_of(st.dictionaries(st.sampled_from(KEYS), values, max_size=6), values)
PATHS = ["/api/act", "/api/start", "/api/undo", "/api/pin", "/api/catalogue/cards",
         "/api/catalogue/cards/giant-panda"]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), body=bodies, method=st.sampled_from(["post", "put", "delete"]))
def test_no_body_makes_a_500(started, session, path, body, method):
    """Whatever arrives, the answer is a sentence or a result, and a refusal changes nothing."""
    before = (session._state, len(session.store.events(session.snapshot()["game_id"])))
    response = getattr(started, method)(path, data=json.dumps(body), content_type="application/json")
    assert response.status_code < 500, response.get_data(as_text=True)
    data = response.get_json()
    if response.status_code >= 400:
        assert set(data) == {"error"} and data["error"].endswith(".")
        after = (session._state, len(session.store.events(session.snapshot()["game_id"])))
        assert after == before
