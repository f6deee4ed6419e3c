"""Finished games and exports: the history list, one game as JSON or CSV."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, send_file

from web.camera import still_path
from web.context import table
from web.errors import ApiError

bp = Blueprint("history", __name__, url_prefix="/api")


@bp.get("/history")
def history() -> Any:
    """Every game, newest first, with the scores of the finished ones."""
    return jsonify(games=[record.summary() for record in table().session.store.history()])


@bp.get("/games/<int:game_id>/export.json")
def export_json(game_id: int) -> Any:
    """One game, its setup, catalogue and every event, as a JSON download."""
    data = table().session.store.export_json(game_id)
    response = jsonify(data)
    response.headers["Content-Disposition"] = f"attachment; filename=game-{game_id}.json"
    return response


@bp.get("/games/<int:game_id>/export.csv")
def export_csv(game_id: int) -> Any:
    """One game's events as a CSV download."""
    text = table().session.store.export_csv(game_id)
    return Response(text, mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename=game-{game_id}.csv"})


@bp.get("/games/<int:game_id>/stills/<name>")
def still(game_id: int, name: str) -> Any:
    """The picture of the table kept with one of the game's accepted claims."""
    if name not in table().session.store.stills(game_id).values():
        raise ApiError(404, f"game {game_id} kept no picture called {name[:60]!r}; the history page lists its pictures.")
    path = still_path(current_app.config.get("DATA_DIR") or "", name)
    if path is None:
        raise ApiError(404, f"the picture {name[:60]!r} is no longer in the data folder.")
    return send_file(path, mimetype="image/jpeg", max_age=3600)
