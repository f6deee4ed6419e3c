"""The phone pages, the JSON API and the live updates (Server-Sent Events).

`create_app(session, test_config)` builds the Flask app for one table, Flask-tutorial style:
defaults, then the test config; one blueprint per concern; every error answers with a sentence.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from flask import Flask

from companion.session import Session
from companion.store import EventStore
from web import api, camera_api, catalogue_api, errors, history, pages, stream
from web.broker import Broker
from web.context import PinGuard, Table

# No request the phones make is near this; anything bigger is refused with 413 before it is read.
MAX_BODY_BYTES = 64 * 1024

# The pages use only our own files: no inline script, no CDN (the table has no internet).
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def create_app(session: Session | None = None, test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app for one table; without a session, a fresh one over an in-memory store."""
    app = Flask(__name__)
    app.config.from_mapping(
        PIN="",  # empty: a fresh 4-digit PIN is made
        TABLE_URL="",  # the address phones open (for the QR code); empty: the request's own
        DATABASE=":memory:",
        CATALOGUE_PATH=None,
        DATA_DIR=None,  # the data folder (stills of accepted claims are kept there)
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        JSON_SORT_KEYS=False,
    )
    if test_config:
        app.config.update(test_config)
    if not app.config["PIN"]:
        app.config["PIN"] = f"{secrets.randbelow(10_000):04d}"
    if session is None:
        session = Session(EventStore(app.config["DATABASE"]), catalogue_path=app.config["CATALOGUE_PATH"])
    broker = Broker()
    unsubscribe = session.subscribe(lambda snapshot: broker.publish(json.dumps(snapshot), snapshot.get("version")))
    app.extensions["table"] = Table(session=session, broker=broker, pins=PinGuard(str(app.config["PIN"])),
                                    unsubscribe=unsubscribe)
    for blueprint in (api.bp, stream.bp, history.bp, catalogue_api.bp, camera_api.bp, pages.bp):
        app.register_blueprint(blueprint)
    errors.register(app)

    @app.after_request
    def security_headers(response: Any) -> Any:
        """Keep other sites' scripts out and stop browsers guessing content types."""
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    return app
