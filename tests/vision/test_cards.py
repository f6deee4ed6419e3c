"""Card teaching and recognition on synthetic cards: turned, relit, glared, several at once, unknown ones."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.cards import CardError, CardLibrary, crop_card

CARD_W, CARD_H = 300, 420
FRAMES = [(40, 120, 40), (160, 90, 30), (30, 110, 190), (120, 60, 140), (40, 160, 200), (90, 90, 90)]
NAMES = ["Giant Panda", "Fin Whale", "Bawean Deer", "Red Wolf", "Golden Lion Tamarin", "Snow Leopard"]


def _draw_die(card: np.ndarray, x: int, y: int, side: int, value: int, black: bool) -> None:
    """A die symbol as printed on a card: a rounded square with its pips."""
    body, pip = ((30, 30, 30), (240, 240, 240)) if black else ((245, 245, 245), (20, 20, 20))
    cv2.rectangle(card, (x, y), (x + side, y + side), body, cv2.FILLED)
    cv2.rectangle(card, (x, y), (x + side, y + side), (0, 0, 0), 2)
    layout = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
              5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}
    for dx, dy in layout[value]:
        centre = (x + side // 2 + round(dx * side * 0.27), y + side // 2 + round(dy * side * 0.27))
        cv2.circle(card, centre, max(2, side // 10), pip, cv2.FILLED, cv2.LINE_AA)


def make_card(index: int, dice: tuple[tuple[str, int], ...] = (("B", 2), ("W", 3), ("W", 6))) -> np.ndarray:
    """A made-up card: coloured frame, name, an animal-like drawing (seeded by index), dice symbols, points."""
    rng = np.random.default_rng(1000 + index)
    card = np.full((CARD_H, CARD_W, 3), (235, 240, 242), np.uint8)
    frame = FRAMES[index % len(FRAMES)]
    cv2.rectangle(card, (0, 0), (CARD_W - 1, CARD_H - 1), frame, 18)
    cv2.putText(card, NAMES[index % len(NAMES)] + (f" {index}" if index >= len(NAMES) else ""), (22, 50),
                cv2.FONT_HERSHEY_DUPLEX, 0.75, (20, 20, 20), 2, cv2.LINE_AA)
    # The animal: a body, a head, ears, legs and a patterned coat, all in random colours and places.
    scene = card[70:300, 20:280]
    scene[:] = rng.integers(150, 230, 3)
    for _ in range(25):  # background foliage
        centre = (int(rng.integers(0, 260)), int(rng.integers(0, 230)))
        cv2.circle(scene, centre, int(rng.integers(5, 25)), tuple(int(v) for v in rng.integers(40, 200, 3)), -1)
    coat = tuple(int(v) for v in rng.integers(20, 240, 3))
    body = (int(rng.integers(90, 170)), int(rng.integers(100, 150)))
    cv2.ellipse(scene, body, (int(rng.integers(50, 80)), int(rng.integers(30, 50))), float(rng.uniform(-30, 30)),
                0, 360, coat, -1)
    head = (body[0] + int(rng.integers(40, 80)), body[1] - int(rng.integers(30, 60)))
    cv2.circle(scene, head, int(rng.integers(20, 32)), coat, -1)
    for side in (-1, 1):
        cv2.circle(scene, (head[0] + side * 18, head[1] - 22), 9, (30, 30, 30), -1)
        cv2.circle(scene, (head[0] + side * 8, head[1] - 4), 4, (10, 10, 10), -1)
    for leg in range(4):
        x = body[0] - 45 + leg * 28
        cv2.line(scene, (x, body[1] + 20), (x + int(rng.integers(-10, 10)), body[1] + 70), coat, 9)
    for _ in range(30):  # spots and stripes
        at = (int(body[0] + rng.integers(-60, 60)), int(body[1] + rng.integers(-30, 30)))
        cv2.circle(scene, at, int(rng.integers(2, 8)), tuple(int(v) for v in rng.integers(0, 120, 3)), -1)
    x = 30
    for colour, value in dice:
        _draw_die(card, x, 320, 56, value, colour == "B")
        x += 66
    cv2.putText(card, str(index % 5 + 1), (250, 395), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 160), 2, cv2.LINE_AA)
    return card


def table_with_cards(cards: list[tuple[np.ndarray, float, float, float]], size=(1200, 800), light=1.0,
                     tint=(1.0, 1.0, 1.0), glare: list[tuple[float, float, float]] = (), scale=0.55, seed=0,
                     blur=0.8) -> tuple[np.ndarray, list[np.ndarray]]:
    """A display area (light paper) with cards (picture, x, y, angle) laid on it; returns the frame and card quads."""
    rng = np.random.default_rng(seed)
    w, h = size
    frame = np.full((h, w, 3), (214, 222, 226), np.float32)
    frame += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    quads = []
    for picture, x, y, angle in cards:
        ch, cw = picture.shape[:2]
        matrix = cv2.getRotationMatrix2D((cw / 2, ch / 2), angle, scale)
        matrix[:, 2] += (x - cw / 2, y - ch / 2)
        warped = cv2.warpAffine(picture, matrix, (w, h), flags=cv2.INTER_AREA).astype(np.float32)
        mask = cv2.warpAffine(np.full((ch, cw), 255, np.uint8), matrix, (w, h), flags=cv2.INTER_AREA)[..., None] / 255
        frame = frame * (1 - mask) + warped * mask
        quads.append(cv2.transform(np.float32([[[0, 0], [cw, 0], [cw, ch], [0, ch]]]), matrix)[0])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    falloff = 1.0 - 0.25 * (np.hypot(xx - w * 0.3, yy - h * 0.2) / math.hypot(w, h))
    frame = frame * falloff[..., None] * light * np.float32(tint)
    for gx, gy, radius in glare:
        d = np.hypot(xx - gx, yy - gy) / radius
        frame += (np.clip(1.5 - d, 0, 1) * 255)[..., None]
    frame = cv2.GaussianBlur(np.clip(frame, 0, 255).astype(np.uint8), (0, 0), blur)
    return frame, quads


@pytest.fixture(scope="module")
def library() -> CardLibrary:
    """Four taught cards, in memory."""
    lib = CardLibrary()
    for index in range(4):
        lib.teach(f"card-{index}", make_card(index))
    return lib


def _centre_of(quad: np.ndarray) -> np.ndarray:
    """The middle of a quadrilateral."""
    return np.asarray(quad, np.float32).reshape(-1, 2).mean(axis=0)


def _assert_found(sightings, expected: dict[str, list[np.ndarray]]) -> None:
    """Every expected card found once near its true place, and nothing else recognised."""
    known = [s for s in sightings if s.card_id is not None]
    assert sorted(s.card_id for s in known) == sorted(i for i, qs in expected.items() for _ in qs), known
    for sighting in known:
        distances = [np.linalg.norm(_centre_of(sighting.corners) - _centre_of(q)) for q in expected[sighting.card_id]]
        assert min(distances) < 10, (sighting.card_id, distances)


def test_several_cards_turned_any_way_are_recognised(library) -> None:
    """Four cards, each turned differently (one upside down), found by id at their places."""
    frame, quads = table_with_cards([(make_card(0), 200, 220, 15), (make_card(1), 520, 230, 92),
                                     (make_card(2), 850, 250, 180), (make_card(3), 450, 580, -37)])
    _assert_found(library.recognise(frame), {f"card-{i}": [quads[i]] for i in range(4)})


@pytest.mark.parametrize("light, tint", [(0.5, (1, 1, 1)), (1.0, (0.7, 0.9, 1.1)), (1.2, (1.1, 1.0, 0.85))])
def test_cards_are_recognised_under_other_light(library, light, tint) -> None:
    """Dim, warm and bright-cool light: the same cards are still found."""
    frame, quads = table_with_cards([(make_card(1), 260, 260, 30), (make_card(3), 800, 420, -60)], light=light,
                                    tint=tint, seed=4)
    _assert_found(library.recognise(frame), {"card-1": [quads[0]], "card-3": [quads[1]]})


def test_a_card_partly_under_glare_is_recognised(library) -> None:
    """A lamp's reflection over a good part of a card: still recognised."""
    frame, quads = table_with_cards([(make_card(2), 400, 380, 10)], glare=[(390, 330, 55)], seed=5)
    _assert_found(library.recognise(frame), {"card-2": [quads[0]]})


def test_two_copies_of_one_card_are_both_found(library) -> None:
    """Copies share an id; both copies on the table are reported."""
    frame, quads = table_with_cards([(make_card(0), 250, 300, 0), (make_card(0), 800, 420, 70)])
    _assert_found(library.recognise(frame), {"card-0": quads})


def test_an_untaught_card_is_reported_unknown(library) -> None:
    """A card never taught is reported as unknown (for the host to teach), never as a taught card."""
    frame, quads = table_with_cards([(make_card(1), 250, 300, 5), (make_card(7), 800, 380, -20)], seed=2)
    sightings = library.recognise(frame)
    _assert_found(sightings, {"card-1": [quads[0]]})
    unknown = [s for s in sightings if s.card_id is None]
    assert len(unknown) == 1
    assert np.linalg.norm(_centre_of(unknown[0].corners) - _centre_of(quads[1])) < 15


def test_with_no_card_taught_an_unknown_card_is_found_by_its_size() -> None:
    """Nothing taught yet: with the card's size in pixels, a card is still reported (unknown)."""
    frame, quads = table_with_cards([(make_card(5), 500, 380, 25)])
    area = cv2.contourArea(quads[0])
    sightings = CardLibrary().recognise(frame, card_area=(0.7 * area, 1.3 * area))
    assert [s.card_id for s in sightings] == [None]


def test_an_empty_display_has_no_cards(library) -> None:
    """Bare paper: nothing recognised, nothing unknown."""
    frame, _ = table_with_cards([])
    assert library.recognise(frame, card_area=(20000, 60000)) == []


def test_a_card_cut_from_a_table_frame_teaches_it(tmp_path) -> None:
    """Teach from the card's region of a frame (cut and straightened), save, reload, recognise."""
    frame, quads = table_with_cards([(make_card(4), 500, 380, 120)])
    picture = crop_card(frame, quads[0])
    assert picture.shape[0] > picture.shape[1]  # straightened upright
    CardLibrary(tmp_path / "cards").teach("golden-lion-tamarin", picture)
    reloaded = CardLibrary(tmp_path / "cards")
    assert reloaded.card_ids == ("golden-lion-tamarin",)
    later, quads = table_with_cards([(make_card(4), 300, 300, -75)], light=0.7, seed=9)
    _assert_found(reloaded.recognise(later), {"golden-lion-tamarin": quads})


def test_forgetting_a_card_removes_it(tmp_path) -> None:
    """A forgotten card is not loaded again."""
    lib = CardLibrary(tmp_path)
    lib.teach("a", make_card(0))
    lib.teach("odd id/with spaces", make_card(1))
    lib.forget("a")
    assert CardLibrary(tmp_path).card_ids == ("odd id/with spaces",)


@pytest.mark.parametrize("picture", [np.zeros((10, 10, 3), np.uint8), np.zeros((100, 100), np.uint8), "card"])
def test_teaching_from_a_bad_picture_says_what_is_needed(picture) -> None:
    """Too small, grey or not a picture: a sentence about the picture needed."""
    with pytest.raises(CardError, match="need a colour picture of the card"):
        CardLibrary().teach("x", picture)


def test_teaching_a_blank_picture_asks_for_the_card_face() -> None:
    """A picture with no detail cannot be recognised later: refused in words."""
    with pytest.raises(CardError, match="too little detail"):
        CardLibrary().teach("x", np.full((420, 300, 3), 200, np.uint8))


def test_a_damaged_library_index_is_named(tmp_path) -> None:
    """A damaged index: the file is named and the fix given."""
    (tmp_path / "cards.json").write_text("{nope")
    with pytest.raises(CardError, match="cards.json is damaged"):
        CardLibrary(tmp_path)
