"""The cards on display: find them in the mat's display area, teach a new one, and prefill its dice requirement."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import cv2
import numpy as np

from calibration.table import Calibration
from vision.cards import CardLibrary, CardSighting, crop_card

DISPLAY_PX_PER_MM = 4.0  # the display area is rectified at this scale before cards are looked for
# A card on the table is somewhere between a mini card and a large tarot card (mm2); only used for unknown cards.
CARD_AREA_MM2 = (40 * 55, 100 * 140)
# Dice requirement letters of the die colours (Rescue Animals' catalogue text: gray counts as white).
REQUIREMENT_LETTERS = {"black": "B", "white": "W", "ivory": "W", "gray": "W"}
MIN_DIE_CONFIDENCE = 0.5
READ_SIDES = (300, 420, 560, 760, 1000)  # longer sides (pixels) a card's picture is read at for its dice


def card_library(data_folder: str | Path) -> CardLibrary:
    """The taught cards kept in the data folder (the `cards` folder inside it)."""
    return CardLibrary(Path(data_folder) / "cards")


def cards_in_display(calibration: Calibration, frame: np.ndarray, library: CardLibrary) -> list[CardSighting]:
    """The cards in the display area of a camera frame, corners in the frame's pixels; unknown ones have no id."""
    display = calibration.mat.display
    top_down = calibration.rectify(frame, rect=display, px_per_mm=DISPLAY_PX_PER_MM)
    scale = DISPLAY_PX_PER_MM ** 2
    sightings = library.recognise(top_down, card_area=(CARD_AREA_MM2[0] * scale, CARD_AREA_MM2[1] * scale))
    back = np.linalg.inv(calibration.rectify_matrix(display, DISPLAY_PX_PER_MM))
    return [_mapped(s, back) for s in sightings]


def _mapped(sighting: CardSighting, homography: np.ndarray) -> CardSighting:
    """The sighting with its corners carried through a homography."""
    corners = cv2.perspectiveTransform(np.float64(sighting.corners).reshape(-1, 1, 2), homography).reshape(-1, 2)
    return CardSighting(sighting.card_id, tuple((float(x), float(y)) for x, y in corners), sighting.inliers,
                        sighting.confidence)


def card_picture(frame: np.ndarray, sighting: CardSighting) -> np.ndarray:
    """The card of a sighting cut out of the frame and straightened upright, for teaching."""
    return crop_card(frame, np.float32(sighting.corners))


@dataclass(frozen=True)
class RequirementGuess:
    """The dice requirement read off a card's picture: catalogue text (maybe empty) and a note for the host."""

    text: str
    dice: int
    note: str


def requirement_from_dice(readings: Iterable[Any]) -> str:
    """Requirement text ("B2 W3 W6") from dice read on a card: sure, white/gray/black, and of one size.

    Dice drawn on a card are printed alike, so a reading much bigger or smaller than the others is
    something else on the card (a letter, a spot of the drawing).
    """
    sure = [r for r in readings if r.confidence >= MIN_DIE_CONFIDENCE and r.colour in REQUIREMENT_LETTERS]
    if not sure:
        return ""
    typical = float(np.median([r.size for r in sure]))
    alike = [r for r in sure if 0.75 * typical <= r.size <= 1.33 * typical]
    tokens = sorted((REQUIREMENT_LETTERS[r.colour], r.value) for r in alike)
    return " ".join(f"{letter}{value}" for letter, value in tokens)


def prefill_requirement(picture: np.ndarray) -> RequirementGuess:
    """Read the dice drawn on a card's picture into requirement text, for the host to confirm or correct."""
    try:
        from vision.dice import read_dice
    except ImportError:
        return RequirementGuess("", 0, "the dice reader is not installed: enter the card's dice by hand.")
    text = _most_read(picture, read_dice)
    count = len(text.split())
    if not count:
        return RequirementGuess("", 0, "no dice could be read on the card: enter its dice requirement by hand.")
    return RequirementGuess(text, count, f"read {count} dice on the card ({text}): check them against the card, "
                            "add any 'any white' symbols (W*) or a special requirement, and correct before saving.")


def _most_read(picture: np.ndarray, read_dice: Any) -> str:
    """The requirement text read most often over a few scales of the picture (then the longest).

    A card's picture may come at any size and the reader has sizes it reads best, so the picture is read
    at several sizes and the readings vote.
    """
    votes: dict[str, int] = {}
    for side in READ_SIDES:
        scale = side / max(picture.shape[:2])
        resized = cv2.resize(picture, None, fx=scale, fy=scale,
                             interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
        text = requirement_from_dice(read_dice(resized))
        if text:
            votes[text] = votes.get(text, 0) + 1
    if not votes:
        return ""
    return max(votes, key=lambda text: (votes[text], len(text.split())))


def teach_card(library: CardLibrary, card_id: str, picture: np.ndarray) -> RequirementGuess:
    """Teach the library a card from its picture and return the requirement read off it, for the host to confirm."""
    library.teach(card_id, picture)
    return prefill_requirement(picture)
