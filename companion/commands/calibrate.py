"""`companion calibrate`: print the mat, calibrate the table from one frame, or check that the camera has not moved."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.settings import load_settings

FRAMES_TO_SKIP = 5  # a camera's first frames are dark or unsettled while its exposure adapts


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `companion calibrate [mat|check]` with its options."""
    parser = subparsers.add_parser(
        "calibrate", help="print the mat, calibrate the table from the camera, or check the camera has not moved",
        description="`companion calibrate mat --seats N --out FILE` writes the printable mat (PNG and PDF); "
                    "`companion calibrate` finds the mat in one frame, checks the picture, learns the dice colours "
                    "from the squares and writes the calibration file; `companion calibrate check` says whether "
                    "the camera moved since.")
    parser.add_argument("action", nargs="?", choices=("mat", "check"), help="mat: write the printable mat; "
                        "check: compare a frame with the calibration; leave out to calibrate")
    parser.add_argument("--seats", type=int, help="mat: number of seats (1-6)")
    parser.add_argument("--size", default="A3", help="mat: paper size, A3 or A2 (default A3)")
    parser.add_argument("--dpi", type=int, default=150, help="mat: pixels per inch of the PNG and PDF (default 150)")
    parser.add_argument("--source", help="camera source to take the frame from (picamera2, usb:N, sim, ...)")
    parser.add_argument("--image", help="calibrate from this picture instead of a camera")
    parser.add_argument("--out", help="mat: the file to write (.png and .pdf are added); calibrate: the calibration "
                        "file (default: calibration.json in the data folder)")
    parser.add_argument("--annotate", help="where to write the annotated picture (default: next to the calibration "
                        "file, .png)")
    parser.add_argument("--settings", help="the settings file (for the data folder and the camera source)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the chosen calibration step and print what it found; returns the exit status."""
    try:
        if args.action == "mat":
            return _write_mat(args)
        if args.seats is not None:
            raise CompanionError("--seats is for `companion calibrate mat`; the camera reads the seat count off the mat.")
        return _check(args) if args.action == "check" else _calibrate(args)
    except CompanionError as error:
        print(f"companion calibrate: {error}", file=sys.stderr)
        return 2


def _write_mat(args: argparse.Namespace) -> int:
    """Write the printable mat as PNG and PDF."""
    from calibration.mat import MAX_SEATS, MIN_SEATS, PAPER_SIZES, mat_geometry, write_mat

    if args.seats is None or not MIN_SEATS <= args.seats <= MAX_SEATS:
        raise CompanionError(f"say how many seats the mat has: --seats {MIN_SEATS} to {MAX_SEATS}.")
    paper = args.size.upper()
    if paper not in PAPER_SIZES:
        raise CompanionError(f"--size {args.size!r} is not a paper size the mat comes in; use A3 or A2.")
    if not args.out:
        raise CompanionError("say where to write the mat: --out FILE (the .png and .pdf are made from it).")
    if not 50 <= args.dpi <= 600:
        raise CompanionError(f"--dpi {args.dpi} is out of range; use 72 to 600 (150 prints well).")
    try:
        png, pdf = write_mat(mat_geometry(args.seats, paper), args.out, dpi=args.dpi)
    except OSError as error:
        raise CompanionError(f"cannot write the mat to {args.out} ({error.strerror or error}).") from None
    width, height = PAPER_SIZES[paper]
    print(f"wrote {pdf} and {png}: {args.seats} seats on {paper} ({width:.0f} x {height:.0f} mm).")
    print("Print the PDF at 100% (actual size, no 'fit to page'), lay it flat under the camera, "
          "then run `companion calibrate`.")
    return 0


def _data_folder(args: argparse.Namespace) -> Path:
    """The data folder of the settings in use."""
    return load_settings(args.settings).data_path


def _calibration_path(args: argparse.Namespace) -> Path:
    """Where the calibration file is (or goes)."""
    from calibration.store import CALIBRATION_FILE

    return Path(args.out) if args.out else _data_folder(args) / CALIBRATION_FILE


def grab_frame(source: str | None, image: str | None, settings_path: str | None = None) -> np.ndarray:
    """One frame: read from the picture file, or the newest of a few frames from the camera source."""
    if image:
        picture = cv2.imread(image, cv2.IMREAD_COLOR)
        if picture is None:
            raise CompanionError(f"{image} is not a picture that can be read (missing, or not PNG/JPEG).")
        return picture
    from vision.sources import open_source, parse_spec

    spec = source or load_settings(settings_path).camera.source
    if spec.split("?")[0] == "sim":  # the simulated camera looks at the simulated printed mat
        from calibration.demo import SIM_SEATS, mat_table

        options = parse_spec(spec).options
        table, _view = mat_table(seats=SIM_SEATS, size=tuple(options["size"]), seed=options["seed"],
                                 lighting=options["lighting"])
        return table.next_frame()[0]
    frame = None
    with open_source(spec) as camera:
        for index, frame in enumerate(camera.frames()):
            if index >= FRAMES_TO_SKIP:
                break
    if frame is None:
        raise CompanionError(f"the camera {spec!r} gave no picture: check it is connected, or use --image FILE.")
    return frame


def _calibrate(args: argparse.Namespace) -> int:
    """Calibrate from one frame, write the calibration file and the annotated picture."""
    from calibration.annotate import draw_calibration
    from calibration.steps import calibrate_frame
    from calibration.store import save_calibration

    frame = grab_frame(args.source, args.image, args.settings)
    result = calibrate_frame(frame)
    out = _calibration_path(args)
    picture = Path(args.annotate) if args.annotate else out.with_suffix(".png")
    learned = result.colours.samples if result.colours else None
    _write_picture(picture, draw_calibration(frame, result.calibration, result.problems, learned))
    for check in result.checks:
        print(f"{check.name}: {'ok' if check.ok else 'FIX'} - {check.message}")
    for note in result.notes:
        print(f"note: {note}")
    if result.calibration is None:
        print(f"not calibrated: {result.problems[0]}", file=sys.stderr)
        print(f"see {picture}", file=sys.stderr)
        return 1
    try:
        save_calibration(result.calibration, out)
    except OSError as error:
        raise CompanionError(f"cannot write the calibration file {out} ({error.strerror or error}); "
                             "pass --out with a writable place.") from None
    mat = result.calibration.mat
    print(f"found the {len(mat.seats)}-seat {mat.paper} mat; wrote {out} and the picture {picture}.")
    for problem in result.problems:
        print(f"to fix: {problem}", file=sys.stderr)
    if result.problems:
        print("Fix the above and run `companion calibrate` again for the best readings.", file=sys.stderr)
        return 1
    return 0


def _write_picture(path: Path, image: np.ndarray) -> None:
    """Write a PNG/JPEG picture, making its folder; a place that cannot be written is said in a sentence."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        written = cv2.imwrite(str(path), image)
    except (OSError, cv2.error) as error:
        why = getattr(error, "strerror", None) or "not a picture file name: use .png or .jpg"
        raise CompanionError(f"cannot write the picture {path} ({why}); pass --annotate with a writable .png file.") from None
    if not written:
        raise CompanionError(f"cannot write the picture {path}; pass --annotate with a writable .png file.")


def _check(args: argparse.Namespace) -> int:
    """Say whether the camera moved since the calibration."""
    from calibration.steps import check_camera_moved
    from calibration.store import load_calibration

    frame = grab_frame(args.source, args.image, args.settings)
    calibration = load_calibration(_calibration_path(args), image_size=(frame.shape[1], frame.shape[0]))
    verdict = check_camera_moved(calibration, frame)
    if verdict.message:
        print(verdict.message, file=sys.stderr if verdict.moved else sys.stdout)
    if not verdict.moved:
        print(f"the camera has not moved (markers within {verdict.shift_px:.1f} px of where they were).")
    return 1 if verdict.moved else 0
