"""The table simulator: deterministic, truth consistent with the pixels, lighting, pictures, animation."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.simulator import (
    BLANK_CLUTTER, BODY_COLOURS, CLUTTER_KINDS, DESK_CLUTTER, KEY_COLUMNS, KEY_ROWS, LABEL_HEIGHT, MARKED_CLUTTER, MARKS,
    DieSpec, LIGHTINGS, Lighting, Scene, SimTable, PATTERNS, Thing, marked_places, patterned_table, random_scene,
    render_table, with_lighting,
)

EVEN = Lighting(unevenness=0.0, shadow=0.0, noise=0.0)


def render(scene, seed=0):
    """Render with a fresh generator."""
    return render_table(scene, np.random.default_rng(seed))


def test_same_seed_same_frame_and_other_seed_other_frame():
    first = render(random_scene(np.random.default_rng(5), dice=12), seed=1)
    again = render(random_scene(np.random.default_rng(5), dice=12), seed=1)
    other = render(random_scene(np.random.default_rng(6), dice=12), seed=1)
    assert np.array_equal(first[0], again[0]) and first[1] == again[1]
    assert not np.array_equal(first[0], other[0])


def test_truth_has_the_shape_of_the_photo_sets():
    scene = random_scene(np.random.default_rng(1), dice=26, colours=tuple(BODY_COLOURS))
    image, truth = render(scene)
    assert image.shape == (1080, 1920, 3) and image.dtype == np.uint8
    assert len(truth["dice"]) == 26 and truth["ignore"] == []
    for die in truth["dice"]:
        x1, y1, x2, y2 = die["box"]
        assert 0 <= x1 < x2 < 1920 and 0 <= y1 < y2 < 1080
        assert x1 <= die["centre"][0] <= x2 and y1 <= die["centre"][1] <= y2
        assert 1 <= die["value"] <= 6 and die["colour"] in BODY_COLOURS
        # Seen from ~70 cm a die is 30-45 px wide at 1080p, side faces included.
        assert 28 <= x2 - x1 <= 80


@pytest.mark.parametrize("colour", ["red", "yellow", "green", "blue", "purple"])
def test_every_die_box_holds_die_coloured_pixels_and_nothing_else_does(colour):
    scene = random_scene(np.random.default_rng(3), dice=8, colours=(colour,), lighting=EVEN,
                         background="plain", width=960, height=540, die_size=36)
    image, truth = render(scene)
    body = np.array(BODY_COLOURS[colour], np.float32)
    near = np.linalg.norm(image.astype(np.float32) - body, axis=2) < 40
    outside = near.copy()
    for die in truth["dice"]:
        x1, y1, x2, y2 = die["box"]
        assert near[y1:y2 + 1, x1:x2 + 1].mean() > 0.15
        cx, cy, half = int(die["centre"][0]), int(die["centre"][1]), int(die["size"] * 0.35)
        assert near[cy - half:cy + half, cx - half:cx + half].mean() > 0.5  # the top face, pips aside
        outside[max(0, y1 - 2):y2 + 3, max(0, x1 - 2):x2 + 3] = False
    assert outside.sum() == 0


def _top_face_pixels(image, die, share=0.35):
    """The BGR pixels of the middle of a die's top face (float32, n x 3)."""
    cx, cy, half = int(die["centre"][0]), int(die["centre"][1]), int(die["size"] * share)
    return image[cy - half:cy + half, cx - half:cx + half].reshape(-1, 3).astype(np.float32)


def test_a_marbled_die_shows_veins_of_its_second_colour_and_a_plain_one_does_not():
    dice = (DieSpec(x=120, y=120, value=1, colour="blue", pips="black", size=60),
            DieSpec(x=300, y=120, value=1, colour="blue", pips="black", swirl="white", size=60))
    image, truth = render(Scene(width=420, height=240, dice=dice, lighting=EVEN, background="plain"))
    plain, marbled = (_top_face_pixels(image, die) for die in truth["dice"])
    blue, white = (np.array(BODY_COLOURS[name], np.float32) for name in ("blue", "white"))
    # Pixels nearer white than blue: none on the plain face but its glossy patch, a vein's worth on the marbled one.
    whitish = [float((np.linalg.norm(p - white, axis=1) < np.linalg.norm(p - blue, axis=1)).mean()) for p in (plain, marbled)]
    assert whitish[0] < 0.02 and 0.05 < whitish[1] < 0.6
    # The body colour still rules: the marbled face's median pixel is nearer blue than white.
    middle = np.median(marbled, axis=0)
    assert np.linalg.norm(middle - blue) < np.linalg.norm(middle - white)


def count_pips(image, die):
    """Dark blobs of pip size in the die's top face (white dice, black pips)."""
    cx, cy = die["centre"]
    half = int(die["size"] * 0.6)
    face = cv2.cvtColor(image[int(cy) - half:int(cy) + half, int(cx) - half:int(cx) + half], cv2.COLOR_BGR2GRAY)
    # Only the round middle of the top face: side faces (and their pips) lie beyond half a side.
    yy, xx = np.mgrid[-half:half, -half:half]
    inside = np.hypot(xx + int(cx) - cx, yy + int(cy) - cy) < die["size"] * 0.49
    dark = ((face < 110) & inside).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    return sum(1 for area in stats[1:, cv2.CC_STAT_AREA] if area >= 4)


def test_the_pips_drawn_match_the_value_in_the_truth():
    dice = tuple(
        DieSpec(x=150 + 110 * (value - 1), y=150 + 90 * (turn % 3), value=value, angle=17.0 * turn, size=40)
        for value in range(1, 7) for turn in range(3)
    )
    image, truth = render(Scene(width=900, height=480, dice=dice, lighting=EVEN, background="plain"))
    assert [count_pips(image, die) for die in truth["dice"]] == [die["value"] for die in truth["dice"]]


def _pip_spots(image, die):
    """Centres of the dark pip blobs inside a white die's top face, relative to its centre (n x 2)."""
    cx, cy = die["centre"]
    half = int(die["size"] * 0.49)
    face = cv2.cvtColor(image[int(cy) - half:int(cy) + half, int(cx) - half:int(cx) + half], cv2.COLOR_BGR2GRAY)
    count, _, stats, centres = cv2.connectedComponentsWithStats((face < 110).astype(np.uint8))
    keep = stats[1:, cv2.CC_STAT_AREA] >= 4
    return centres[1:][keep] - (cx - int(cx) + half, cy - int(cy) + half), stats[1:, cv2.CC_STAT_AREA][keep]


def test_a_makers_pip_layout_sets_how_far_apart_and_how_big_the_pips_are():
    dice = (DieSpec(x=100, y=100, value=6, size=60),
            DieSpec(x=250, y=100, value=6, size=60, pip_step=0.22, pip_radius=0.08),
            DieSpec(x=400, y=100, value=6, size=60, pip_step=0.31, pip_radius=0.12))
    image, truth = render(Scene(width=500, height=200, dice=dice, lighting=EVEN, background="plain", camera_mm=1e6))
    spreads, areas = [], []
    for die in truth["dice"]:
        spots, area = _pip_spots(image, die)
        assert len(spots) == 6
        spreads.append(float(np.abs(spots[:, 0]).mean()) / die["size"])  # the columns lie one step either side
        areas.append(float(np.median(area)))
    usual, close, wide = spreads
    assert close < usual < wide
    assert abs(usual - 0.27) < 0.03 and abs(close - 0.22) < 0.03 and abs(wide - 0.31) < 0.03
    assert areas[1] < areas[0] < areas[2]


def test_dice_away_from_the_centre_show_a_side_face_towards_it():
    scene = Scene(width=1920, height=1080, lighting=EVEN, background="plain",
                  dice=(DieSpec(x=200, y=540, value=1, colour="red"), DieSpec(x=960, y=540, value=1, colour="red")))
    _, truth = render(scene)
    edge, middle = sorted(truth["dice"], key=lambda d: d["centre"][0])
    width = lambda d: d["box"][2] - d["box"][0]  # noqa: E731
    assert width(edge) > width(middle) + 10
    assert edge["centre"][0] < 200  # the top face is pushed outwards


def test_lighting_changes_the_colour_of_a_white_die():
    die = (DieSpec(x=480, y=270, value=1, colour="white", size=60),)
    scene = Scene(width=960, height=540, dice=die, lighting=EVEN)

    def corner_colour(lighting):
        """Mean colour of a patch of the die's face, away from its pip."""
        image, truth = render(with_lighting(scene, lighting))
        cx, cy = truth["dice"][0]["centre"]
        return image[int(cy) - 20:int(cy) - 12, int(cx) - 20:int(cx) - 12].reshape(-1, 3).mean(axis=0)

    neutral = corner_colour(Lighting(unevenness=0, shadow=0, noise=0))
    warm = corner_colour(LIGHTINGS["warm"])
    cool = corner_colour(LIGHTINGS["cool"])
    dim = corner_colour(LIGHTINGS["dim"])
    assert warm[2] - warm[0] > 40  # red above blue
    assert cool[0] - cool[2] > 30
    assert dim.mean() < neutral.mean() * 0.7
    assert abs(neutral[0] - neutral[2]) < 8


def test_a_picture_is_placed_through_the_homography():
    picture = np.zeros((200, 300, 3), np.uint8)
    picture[:] = (20, 200, 240)
    picture[80:120, 130:170] = (200, 30, 30)
    homography = np.array([[2.0, 0.0, 100.0], [0.0, 2.0, 50.0], [0.0, 0.0, 1.0]])
    scene = Scene(width=960, height=540, background=picture, homography=homography, lighting=EVEN, blur=0)
    image, _ = render(scene)
    assert np.abs(image[50 + 200, 100 + 300].astype(int) - (200, 30, 30)).max() < 10
    assert np.abs(image[50 + 20, 100 + 20].astype(int) - (20, 200, 240)).max() < 10
    assert np.abs(image[500, 900].astype(int) - (20, 200, 240)).max() > 40  # the table beyond the picture


def test_jpeg_and_noise_change_pixels_but_not_the_truth():
    scene = random_scene(np.random.default_rng(2), dice=5, width=640, height=360)
    clean, truth = render(scene)
    jpeg = Scene(**{**scene.__dict__, "jpeg_quality": 60})
    squeezed, truth_jpeg = render(jpeg)
    assert truth == truth_jpeg
    assert 0 < np.abs(clean.astype(int) - squeezed).mean() < 6


@pytest.mark.parametrize(
    "scene, message",
    [
        (Scene(dice=(DieSpec(x=10, y=10, value=3, colour="pink"),)), "unknown die colour 'pink'"),
        (Scene(dice=(DieSpec(x=10, y=10, value=7),)), "a die shows 1 to 6, not 7"),
        (Scene(dice=(DieSpec(x=10, y=10, value=2, pips="gold"),)), "unknown pip colour 'gold'"),
        (Scene(dice=(DieSpec(x=10, y=10, value=2, swirl="copper"),)), "unknown swirl colour 'copper'"),
        (Scene(background="marble"), "unknown background 'marble'"),
        (Scene(dice=(DieSpec(x=10, y=10, value=6, pip_step=0.2, pip_radius=0.11),)), "run into each other"),
        (Scene(dice=(DieSpec(x=10, y=10, value=6, pip_step=0.36, pip_radius=0.1),)), "or off the face"),
    ],
)
def test_a_wrong_scene_is_named(scene, message):
    with pytest.raises(ValueError, match=message):
        render(scene)


def test_too_many_dice_for_the_table_is_named():
    with pytest.raises(ValueError, match="could not place 400 dice"):
        random_scene(np.random.default_rng(0), dice=400, width=640, height=360, die_size=40)


def test_sim_table_rolls_a_seat_and_the_dice_come_to_rest():
    table = SimTable(seed=4, dice=8, seats=2, size=(960, 540), roll_every=0, fps=10)
    _, truth = table.next_frame()
    assert truth["seats"] == {0: "still", 1: "still"}
    table.roll(1, values=[6])
    _, truth = table.next_frame()
    assert truth["seats"] == {0: "still", 1: "rolling"}
    for _ in range(20):
        _, truth = table.next_frame()
    assert truth["seats"] == {0: "still", 1: "still"}
    seat_one = [d for d in truth["dice"] if d["seat"] == 1]
    assert len(seat_one) == 4 and {d["value"] for d in seat_one} == {6}
    x1, y1, x2, y2 = table.zones[1]
    assert all(x1 <= d["centre"][0] <= x2 + 20 and y1 - 20 <= d["centre"][1] <= y2 + 20 for d in seat_one)


def test_sim_table_is_the_same_for_the_same_seed():
    frames = []
    for _ in range(2):
        table = SimTable(seed=9, dice=6, seats=2, size=(480, 270), roll_every=1.0, fps=10)
        frames.append([table.next_frame() for _ in range(25)])
    assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(*frames))
    assert any(t["seats"][0] == "rolling" or t["seats"][1] == "rolling" for _, t in frames[0])


def test_sim_table_keeps_set_aside_dice_in_place():
    table = SimTable(seed=1, dice=5, seats=1, size=(960, 540), roll_every=0, fps=10)
    _, before = table.next_frame()
    kept = table.seat_dice(0)[0]
    place = (kept.x, kept.y, kept.value)
    table.roll(0, keep=[0])
    for _ in range(20):
        table.next_frame()
    assert (kept.x, kept.y, kept.value) == place
    with pytest.raises(ValueError, match="there is no seat 3"):
        table.roll(3)


def test_clutter_is_drawn_where_its_truth_says_and_keeps_clear_of_the_dice():
    scene = random_scene(np.random.default_rng(4), dice=6, clutter=8, width=960, height=540, die_size=34,
                         background="plain", lighting=EVEN)
    image, truth = render(scene)
    assert len(truth["clutter"]) == 8 and {t["kind"] for t in truth["clutter"]} <= set(CLUTTER_KINDS)
    table = np.median(image.reshape(-1, 3), axis=0)
    for thing in truth["clutter"]:
        x1, y1, x2, y2 = thing["box"]
        patch = image[y1:y2 + 1, x1:x2 + 1].reshape(-1, 3).astype(int)
        assert (np.abs(patch - table).max(axis=1) > 30).mean() > 0.2, thing
        for die in truth["dice"]:
            dx1, dy1, dx2, dy2 = die["box"]
            assert dx2 < x1 or x2 < dx1 or dy2 < y1 or y2 < dy1, "a thing overlaps a die"


@pytest.mark.parametrize("kind, mark", [("numbered", "5"), ("polyhedral", "20"), ("key", "A")])
def test_a_marked_thing_shows_its_mark_in_ink_on_its_top(kind, mark):
    marked = Thing(kind, 200, 150, 48, 20, "white", mark)
    image, truth = render(Scene(width=400, height=300, lighting=EVEN, background="plain", clutter=(marked,)))
    blank, _ = render(Scene(width=400, height=300, lighting=EVEN, background="plain", clutter=(Thing(kind, 200, 150, 48, 20, "white"),)))
    inked = np.abs(image.astype(int) - blank.astype(int)).max(axis=2) > 60
    ys, xs = np.nonzero(inked)
    x1, y1, x2, y2 = truth["clutter"][0]["box"]
    # A white thing's mark is black (a white die's pip colour), wholly inside the thing.
    assert inked.sum() >= 8 and x1 <= xs.min() and xs.max() <= x2 and y1 <= ys.min() and ys.max() <= y2
    assert image[inked].min() < 60 and truth["clutter"][0]["kind"] == kind and truth["dice"] == []


def test_random_clutter_is_of_the_kinds_asked_for_and_marked_things_carry_a_mark():
    kinds = [t for seed in range(6) for t in random_scene(np.random.default_rng(seed), dice=4, clutter=10, width=960,
                                                          height=540, die_size=30).clutter]
    assert {t.kind for t in kinds} == set(CLUTTER_KINDS)
    assert all((t.mark in MARKS[t.kind]) if t.kind in MARKED_CLUTTER else t.mark == "" for t in kinds)
    blank = random_scene(np.random.default_rng(4), dice=6, clutter=8, width=960, height=540, die_size=34,
                         clutter_kinds=BLANK_CLUTTER)
    # Blank clutter alone draws as many random numbers as before marked things came: the training
    # frames of the shipped face scorer, judge and value reader stay the same.
    assert [(t.kind, round(t.x, 1), t.colour) for t in blank.clutter] == [
        ("bead", 472.8, "ivory"), ("token", 702.8, "yellow"), ("token", 248.7, "ivory"), ("token", 295.9, "red"),
        ("cube", 479.7, "purple"), ("token", 791.4, "gray"), ("cube", 582.1, "black"), ("cube", 593.0, "yellow")]


def test_a_keyboard_shows_a_letter_on_each_of_its_keys_where_its_marked_places_are():
    keyboard = Thing("keyboard", 320, 200, 40, 15, "black", "QWERTYUIOP")
    image, truth = render(Scene(width=640, height=400, lighting=EVEN, background="plain", clutter=(keyboard,)))
    places = marked_places(keyboard)
    assert len(places) == KEY_ROWS * KEY_COLUMNS and {side for _, _, side in places} == {40}
    x1, y1, x2, y2 = truth["clutter"][0]["box"]
    for x, y, _ in places:
        key = image[int(y) - 10:int(y) + 11, int(x) - 10:int(x) + 11].astype(int).sum(axis=2)
        # A black key's letter is white (a black die's pip colour): light strokes on the dark key.
        assert (key > 450).sum() >= 6 and (key < 150).sum() >= 100, (x, y)
        assert x1 < x < x2 and y1 < y < y2
    assert truth["dice"] == [] and truth["clutter"][0]["kind"] == "keyboard"


def test_a_label_is_a_light_strip_with_its_text_printed_along_it():
    label = Thing("label", 200, 150, 120, 0, "white", "M8 x 1.25")
    image, truth = render(Scene(width=400, height=300, lighting=EVEN, background="mat", clutter=(label,)))
    x1, y1, x2, y2 = truth["clutter"][0]["box"]
    assert (x2 - x1, y2 - y1) == pytest.approx((120, 120 * LABEL_HEIGHT), abs=3)
    strip = image[y1 + 2:y2 - 1, x1 + 2:x2 - 1].astype(int).sum(axis=2)
    ink = strip < 300
    # Dark print on white paper, all of it on the strip: a long text is printed small enough to fit.
    assert (strip > 600).mean() > 0.6 and ink.sum() >= 40
    ys, xs = np.nonzero(ink)
    assert xs.min() > 2 and xs.max() < strip.shape[1] - 3
    assert marked_places(label) == [(200, 150, 120)] and marked_places(Thing("cube", 1, 1, 1)) == []


def test_desk_things_are_drawn_only_when_asked_for_and_are_kept_clear_of_the_dice():
    scene = random_scene(np.random.default_rng(9), dice=6, clutter=3, width=1280, height=720, die_size=36,
                         clutter_kinds=DESK_CLUTTER, background="plain", lighting=EVEN)
    assert len(scene.clutter) == 3 and {t.kind for t in scene.clutter} <= set(DESK_CLUTTER)
    assert all(t.mark in MARKS[t.kind] for t in scene.clutter)
    image, truth = render(scene)
    for thing in truth["clutter"]:
        x1, y1, x2, y2 = thing["box"]
        for die in truth["dice"]:
            dx1, dy1, dx2, dy2 = die["box"]
            assert dx2 < x1 or x2 < dx1 or dy2 < y1 or y2 < dy1, "a desk's thing overlaps a die"
    assert not set(DESK_CLUTTER) & set(CLUTTER_KINDS)


def test_a_blank_cube_has_no_pips():
    scene = Scene(width=400, height=300, lighting=EVEN, background="plain",
                  clutter=(Thing("cube", 200, 150, 40, 20, "white"),))
    image, truth = render(scene)
    cube = {"centre": [200, 150], "size": 40}
    assert count_pips(image, cube) == 0 and truth["dice"] == []


def test_the_throwers_hand_shows_over_the_table_during_a_throw_only():
    from vision.simulator import SKIN

    table = SimTable(seed=3, dice=4, seats=2, size=(960, 540), roll_every=0, fps=10)

    def skin_share(image):
        """Share of the frame that has the colour of skin."""
        return float((np.abs(image.astype(int) - SKIN).max(axis=2) < 40).mean())

    before, _ = table.next_frame()
    table.roll(1)
    during = [skin_share(table.next_frame()[0]) for _ in range(4)]
    after = [skin_share(table.next_frame()[0]) for _ in range(10)]
    assert skin_share(before) < 0.001 and max(during) > 0.008 and after[-1] < 0.001


def test_someone_leaning_over_the_table_casts_a_soft_shadow_over_part_of_it():
    scene = Scene(width=960, height=540, background="plain", lighting=Lighting(cast=0.55, unevenness=0, shadow=0, noise=0, seed=5))
    image, _ = render(scene)
    level = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    lit, core = np.percentile(level, 90), np.percentile(level, 2)
    assert core == pytest.approx(0.45 * lit, rel=0.08)  # 55 % of the light taken away at its core
    in_shadow = level < 0.7 * lit
    assert 0.1 < in_shadow.mean() < 0.5  # over part of the table, not all of it
    # Soft: between the shadow and the light, levels run smoothly (no step of more than a few levels).
    assert np.abs(np.diff(level, axis=1)).max() < 12 and np.abs(np.diff(level, axis=0)).max() < 12
    assert "leaning" in LIGHTINGS


@pytest.mark.parametrize("kind", PATTERNS)
def test_a_patterned_table_repeats_pip_sized_marks_at_the_spacing_of_a_die(kind):
    side = 40.0
    picture = patterned_table(np.random.default_rng(3), kind, 640, 360, side)
    assert picture.shape == (360, 640, 3) and picture.dtype == np.uint8
    level = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    _, split = cv2.threshold(level, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # The marks are the class in many pieces (the ground, or a mesh's wires, is one).
    count, _, stats, _ = max((cv2.connectedComponentsWithStats(m) for m in (split, 1 - split)), key=lambda c: c[0])
    areas = stats[1:, cv2.CC_STAT_AREA]
    if kind == "mesh":
        assert count > 100  # the holes between the wires
    else:
        # Many marks, each about a pip's size (0.06-0.16 of the die's side in radius).
        assert count > 100
        assert np.pi * (0.04 * side) ** 2 < np.median(areas) < np.pi * (0.2 * side) ** 2


def test_an_unknown_pattern_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="dots, holes, mesh"):
        patterned_table(np.random.default_rng(0), "stripes", 100, 100, 30.0)


def test_a_throw_that_finds_no_free_place_never_stops_the_table(monkeypatch):
    # A crowded zone where no random place is free (a whole game once failed so, seat 3's dice
    # thrown among its own resting dice): each die tumbles back to where it lay, showing its value.
    import vision.simulator as simulator

    table = SimTable(seed=2, dice=4, seats=1, size=(960, 540), roll_every=0, fps=10)
    before = sorted((round(d.x), round(d.y)) for d in table.seat_dice(0))
    monkeypatch.setattr(simulator, "_fits", lambda candidate, placed, size: False)
    table.roll(0, values=[5])
    for _ in range(20):
        _, truth = table.next_frame()
    assert truth["seats"] == {0: "still"}
    assert sorted((round(d.x), round(d.y)) for d in table.seat_dice(0)) == before
    assert {d["value"] for d in truth["dice"]} == {5}


def test_a_throw_s_dice_may_land_where_the_others_thrown_with_them_lay():
    # The dice thrown together leave their places: the first die's free places include the others'.
    table = SimTable(seed=3, dice=3, seats=1, size=(960, 540), roll_every=0, fps=10)
    dice = table.seat_dice(0)
    taken = []
    real = table._free_spot

    def spy(seat, size, exclude, leaving=(), fallback=None):
        taken.append(len(leaving))
        return real(seat, size, exclude, leaving, fallback)

    table._free_spot = spy
    table.roll(0)
    assert taken == [2, 1, 0] and len(dice) == 3
