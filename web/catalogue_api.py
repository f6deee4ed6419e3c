"""The card catalogue over JSON: anyone reads it; adding, correcting and removing cards needs the PIN."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from companion import catalogue as catalogues
from web.context import table
from web.errors import ApiError
from web.inputs import json_body, require_pin

bp = Blueprint("catalogue", __name__, url_prefix="/api/catalogue")


def _answer(catalogue: catalogues.Catalogue) -> Any:
    """The catalogue as JSON, with a note on where edits go."""
    session = table().session
    return jsonify(
        **catalogue.to_dict(),
        editable=session.catalogue_path is not None,
        note="Edits are used by the next game started; the game being played keeps its cards.",
    )


def _card_body() -> dict[str, Any]:
    """The JSON body of a card edit (PIN checked), without the PIN."""
    body = json_body()
    require_pin(body)
    card = body.get("card", {k: v for k, v in body.items() if k != "pin"})
    if not isinstance(card, dict):
        raise ApiError(400, "'card' should be an object with id, name, latin, area, copies, protection, bonus, requirement.")
    return card


@bp.get("")
def read() -> Any:
    """Every card of the catalogue new games use."""
    return _answer(table().session.catalogue())


@bp.post("/cards")
def add() -> Any:
    """Add a card."""
    card = _card_body()
    session = table().session
    updated = catalogues.add_card(session.catalogue(), card)
    session.save_catalogue(updated)
    return _answer(updated), 201


@bp.put("/cards/<card_id>")
def edit(card_id: str) -> Any:
    """Correct some fields of a card."""
    card = _card_body()
    session = table().session
    updated = catalogues.update_card(session.catalogue(), card_id[:80], card)
    session.save_catalogue(updated)
    return _answer(updated)


@bp.delete("/cards/<card_id>")
def remove(card_id: str) -> Any:
    """Remove a card."""
    require_pin(json_body())
    session = table().session
    updated = catalogues.remove_card(session.catalogue(), card_id[:80])
    session.save_catalogue(updated)
    return _answer(updated)
