"""Reading a request's JSON body field by field, refusing anything malformed with a sentence."""

from __future__ import annotations

import json
from typing import Any

from flask import request

from web.context import table
from web.errors import ApiError

TYPE_WORDS = {int: "a whole number", str: "text", bool: "true or false", list: "a list", dict: "an object"}


def json_body() -> dict[str, Any]:
    """The request body as a JSON object, or a 400 that says what a body should look like."""
    raw = request.get_data(cache=True)  # raises 413 beyond MAX_CONTENT_LENGTH
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: absurdly deep nesting
        raise ApiError(400, "the body is not valid JSON; send an object like {\"seat\": 0}.") from None
    if not isinstance(body, dict):
        raise ApiError(400, f"the body must be a JSON object like {{\"seat\": 0}}, not a {type(body).__name__}.")
    return body


def field(body: dict[str, Any], name: str, kind: type, *, required: bool = True, default: Any = None) -> Any:
    """`body[name]`, checked to be of `kind` (a bool is not a number here)."""
    if name not in body or body[name] is None:
        if required:
            raise ApiError(400, f"{name!r} is missing; it should be {TYPE_WORDS[kind]}.")
        return default
    value = body[name]
    wrong_bool = kind is int and isinstance(value, bool)
    if wrong_bool or not isinstance(value, kind):
        shown = json.dumps(value)[:40]
        raise ApiError(400, f"{name!r} should be {TYPE_WORDS[kind]}, not {shown}.")
    return value


def seat_field(body: dict[str, Any]) -> int:
    """The "seat" field: the index of a seat at this table (counting from 0; people see seat index + 1)."""
    seat = field(body, "seat", int)
    count = len(table().session.snapshot().get("seats", []))
    if count == 0:
        raise ApiError(409, "no game is being played: start one on the setup page.")
    if not 0 <= seat < count:
        raise ApiError(400, f"there is no seat index {seat} at this table; the seats are 1 to {count} (index 0 to {count - 1}).")
    return seat


def require_pin(body: dict[str, Any] | None = None) -> None:
    """Refuse the request unless it carries the table PIN (JSON "pin" or the X-Table-Pin header)."""
    given = request.headers.get("X-Table-Pin")
    if given is None and body is not None:
        given = body.get("pin")
    reason = table().pins.check(given, request.remote_addr or "?")
    if reason is not None:
        status = 429 if reason.startswith("too many") else 401 if "needs" in reason else 403
        raise ApiError(status, reason)
