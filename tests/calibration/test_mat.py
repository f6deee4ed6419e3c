"""The printable mat: geometry, true scale of the PNG and PDF, markers readable by OpenCV, the command."""

from __future__ import annotations

import re
import itertools

import pytest
from PIL import Image

from calibration.mat import (COLOUR_SQUARES, PAPER_SIZES, MatGeometry, geometry_for_marker, mat_geometry,
                             render_mat, write_mat)
from calibration.markers import detect_markers, identify_mat
from companion.cli import main


def _overlap(a, b) -> bool:
    """Whether two mm rectangles overlap (touching edges do not count)."""
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


@pytest.mark.parametrize("seats", range(1, 7))
@pytest.mark.parametrize("paper", PAPER_SIZES)
def test_layout_has_every_part_on_the_paper_and_nothing_overlaps(seats: int, paper: str) -> None:
    """Seat zones, display, markers (with quiet zone) lie on the paper, apart; squares sit in the display."""
    g = mat_geometry(seats, paper)
    assert [z.seat for z in g.seats] == list(range(1, seats + 1))
    assert [s.colour for s in g.squares] == list(COLOUR_SQUARES)
    q = g.quiet_zone_mm
    marker_areas = [type(m.rect)(m.rect.x - q, m.rect.y - q, m.rect.w + 2 * q, m.rect.h + 2 * q) for m in g.markers]
    parts = [z.rect for z in g.seats] + [g.display] + marker_areas
    for rect in parts:
        assert rect.x >= 0 and rect.y >= 0 and rect.x + rect.w <= g.width_mm and rect.y + rect.h <= g.height_mm
    for a, b in itertools.combinations(parts, 2):
        assert not _overlap(a, b), (a, b)
    for square in g.squares:
        r = square.rect
        assert g.display.contains(r.x, r.y) and g.display.contains(r.x + r.w, r.y + r.h)


def test_seats_go_clockwise_seen_from_above() -> None:
    """Five seats: 1 and 2 along the bottom (right to left), 3 on the left, 4 on top, 5 on the right."""
    g = mat_geometry(5)
    centres = {z.seat: z.rect.centre for z in g.seats}
    assert centres[1][0] > centres[2][0] and centres[1][1] > g.height_mm / 2
    assert centres[3][0] < g.width_mm / 3 and centres[4][1] < g.height_mm / 3 and centres[5][0] > 2 * g.width_mm / 3


def test_geometry_survives_a_round_trip_through_plain_values() -> None:
    """to_dict/from_dict give back the same geometry (it is saved in the calibration file)."""
    g = mat_geometry(3, "A2")
    assert MatGeometry.from_dict(g.to_dict()) == g


def test_marker_ids_say_which_mat_it_is() -> None:
    """Each mat's four marker ids are its own, so a picture tells the seat count and paper."""
    seen = set()
    for seats, paper in itertools.product(range(1, 7), PAPER_SIZES):
        g = mat_geometry(seats, paper)
        ids = [m.id for m in g.markers]
        assert not seen & set(ids)
        seen |= set(ids)
        assert all(geometry_for_marker(i) == g for i in ids)
    assert max(seen) < 50  # all within DICT_4X4_50


def test_rendered_mat_markers_are_found_by_opencv() -> None:
    """OpenCV finds all four markers on the drawn mat, and they name the mat."""
    g = mat_geometry(5, "A3")
    image = render_mat(g, px_per_mm=2.0)
    assert set(detect_markers(image)) == {m.id for m in g.markers}
    assert identify_mat(image) == g


@pytest.mark.parametrize("paper", PAPER_SIZES)
def test_png_and_pdf_are_at_true_scale(tmp_path, paper: str) -> None:
    """The PNG carries its dpi and has the paper's size in pixels; the PDF page is the paper's size."""
    png, pdf = write_mat(mat_geometry(4, paper), tmp_path / "mat", dpi=100)
    width_mm, height_mm = PAPER_SIZES[paper]
    with Image.open(png) as picture:
        assert picture.size == (round(width_mm / 25.4 * 100), round(height_mm / 25.4 * 100))
        assert round(picture.info["dpi"][0]) == 100
    box = re.search(rb"/MediaBox \[ ?0 0 ([\d.]+) ([\d.]+) ?\]", pdf.read_bytes())
    assert box, "the PDF has no page size"
    points_w, points_h = float(box.group(1)), float(box.group(2))
    assert abs(points_w / 72 * 25.4 - width_mm) < 1.0 and abs(points_h / 72 * 25.4 - height_mm) < 1.0


def test_bad_layout_requests_are_refused_in_words() -> None:
    """Too many seats or an unknown paper get a sentence."""
    with pytest.raises(ValueError, match="1 to 6 seats"):
        mat_geometry(9)
    with pytest.raises(ValueError, match="unknown paper size 'A5'"):
        mat_geometry(4, "A5")


def test_command_writes_the_mat(tmp_path, capsys) -> None:
    """`companion calibrate mat --seats 3 --out FILE --size A2` writes PNG and PDF and says how to print."""
    status = main(["calibrate", "mat", "--seats", "3", "--size", "a2", "--out", str(tmp_path / "table-mat")])
    out = capsys.readouterr().out
    assert status == 0
    assert (tmp_path / "table-mat.png").exists() and (tmp_path / "table-mat.pdf").exists()
    assert "3 seats on A2 (594 x 420 mm)" in out and "100%" in out


@pytest.mark.parametrize("argv, message", [
    (["calibrate", "mat", "--out", "x"], "--seats 1 to 6"),
    (["calibrate", "mat", "--seats", "8", "--out", "x"], "--seats 1 to 6"),
    (["calibrate", "mat", "--seats", "4", "--size", "letter", "--out", "x"], "'letter' is not a paper size"),
    (["calibrate", "mat", "--seats", "4"], "--out FILE"),
    (["calibrate", "--seats", "4"], "reads the seat count off the mat"),
])
def test_command_refuses_bad_arguments_with_a_sentence(argv, message, capsys) -> None:
    """Each bad request gets exit status 2 and a sentence saying what to do, never a traceback."""
    assert main(argv) == 2
    assert message in capsys.readouterr().err
