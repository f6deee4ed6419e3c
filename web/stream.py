"""Server-Sent Events: each phone keeps one stream open and gets every new snapshot at once."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response

from web.context import table

bp = Blueprint("stream", __name__, url_prefix="/api")


@bp.get("/events")
def events() -> Any:
    """The live stream: the current snapshot first, then one message per change."""
    session = table().session

    def first() -> tuple[str, int | None]:
        """The snapshot as it is when the stream opens."""
        snapshot = session.snapshot()
        return json.dumps(snapshot), snapshot.get("version")

    return Response(
        table().broker.stream(first),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
