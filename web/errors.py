"""Every error answers with a sentence: JSON {"error": ...} under /api/, a small page elsewhere."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion.errors import (CatalogueError, CompanionError, IllegalAction, RequirementError,
                              SessionError, StoreError)

log = logging.getLogger(__name__)

# The sentence each HTTP error gets, in words a player understands.
SENTENCES = {
    400: "The request was not understood; send JSON like the table page does.",
    401: "This needs the table PIN (shown on the host screen).",
    403: "That is not allowed.",
    404: "There is no such page here; go back to the start page.",
    405: "That address does not take this kind of request.",
    413: "That request is far too big; the table only takes short messages.",
    415: "Send the request as JSON (Content-Type: application/json).",
    429: "Too many tries; wait a minute.",
    500: "Something went wrong inside the companion; the game is safe. Try again.",
}


class ApiError(Exception):
    """A request we refuse, with its HTTP status and the sentence that says why."""

    def __init__(self, status: int, message: str) -> None:
        """Remember the status and the sentence."""
        super().__init__(message)
        self.status = status
        self.message = message


def status_of(error: CompanionError) -> int:
    """The HTTP status for one of the companion's own errors."""
    if isinstance(error, IllegalAction):
        return 409
    if isinstance(error, StoreError):
        return 404
    if isinstance(error, (SessionError, CatalogueError, RequirementError)):
        return 400
    return 400


def answer(status: int, message: str) -> Any:
    """The error answer: JSON for the API, a plain page for people."""
    message = message.strip() or SENTENCES.get(status, "Error.")
    first_word = message.split()[0]
    if "." not in first_word and "/" not in first_word:  # never capitalise a file name
        message = message[:1].upper() + message[1:]
    if message[-1] not in ".!?":
        message += "."
    if request.path.startswith("/api/"):
        return jsonify(error=message), status
    return render_template("error.html", message=message, status=status), status


def register(app: Flask) -> None:
    """Install the handlers that turn every failure into a sentence."""

    @app.errorhandler(ApiError)
    def api_error(error: ApiError) -> Any:
        """Our own refusals."""
        return answer(error.status, error.message)

    @app.errorhandler(CompanionError)
    def companion_error(error: CompanionError) -> Any:
        """The rules or the session said no."""
        return answer(status_of(error), str(error))

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        """404, 405, 413 and friends."""
        status = error.code or 500
        return answer(status, SENTENCES.get(status, error.description or "Error."))

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Any:
        """A bug: log it in full, tell the phone a sentence, never a traceback."""
        log.exception("unexpected error on %s %s", request.method, request.path)
        return answer(500, SENTENCES[500])
