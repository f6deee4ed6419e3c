"""Finding the mat's ArUco markers with OpenCV's cv2.aruco and turning them into the table homography."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.mat import ARUCO_DICTIONARY, MatGeometry, aruco_dictionary, geometry_for_marker

# Markers whose corners land further than this from where the homography puts them mean a bent or wrong mat.
MAX_REPROJECTION_PX = 4.0


@dataclass(frozen=True)
class MarkerFix:
    """The markers found in one picture and the homography they give (image pixels -> mat mm)."""

    corners: dict[int, np.ndarray]  # marker id -> (4, 2) image pixels, clockwise from the marker's top-left
    homography: np.ndarray | None
    missing: tuple[int, ...]
    reprojection_px: float | None
    message: str | None  # None when every marker was found and they agree


def _grey(image: np.ndarray) -> np.ndarray:
    """The image as 8-bit grey (accepts grey or BGR)."""
    if image.ndim == 2:
        return image
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _detector(dictionary: str) -> cv2.aruco.ArucoDetector:
    """An ArUco detector with sub-pixel corners (the homography is only as good as the corners)."""
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), parameters)


def detect_markers(image: np.ndarray, dictionary: str = ARUCO_DICTIONARY) -> dict[int, np.ndarray]:
    """Every ArUco marker of `dictionary` in `image`: id -> (4, 2) corner pixels (first sighting of each id)."""
    corners, ids, _rejected = _detector(dictionary).detectMarkers(_grey(image))
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for marker_id, quad in zip(np.asarray(ids).reshape(-1), corners):
        found.setdefault(int(marker_id), np.asarray(quad, dtype=np.float64).reshape(4, 2))
    return found


def find_markers(image: np.ndarray, geometry: MatGeometry) -> dict[int, np.ndarray]:
    """The markers of this mat visible in `image`: id -> (4, 2) corner pixels; other ids are ignored."""
    wanted = {m.id for m in geometry.markers}
    return {i: q for i, q in detect_markers(image, geometry.dictionary).items() if i in wanted}


def identify_mat(image: np.ndarray) -> MatGeometry | None:
    """Which of our mats is in the picture (its markers say the seat count and paper), or None."""
    votes: dict[MatGeometry, int] = {}
    for marker_id in detect_markers(image):
        geometry = geometry_for_marker(marker_id)
        if geometry is not None:
            votes[geometry] = votes.get(geometry, 0) + 1
    return max(votes, key=votes.__getitem__) if votes else None


def marker_correspondences(found: dict[int, np.ndarray], geometry: MatGeometry) -> tuple[np.ndarray, np.ndarray]:
    """Matching point lists (image pixels, mat mm) from every corner of every found marker."""
    image_points, mat_points = [], []
    for marker_id, quad in sorted(found.items()):
        marker = geometry.marker(marker_id)
        if marker is None:
            continue
        image_points.append(quad)
        mat_points.append(marker.rect.corners())
    if not image_points:
        return np.zeros((0, 2)), np.zeros((0, 2))
    return np.concatenate(image_points), np.concatenate(mat_points)


def locate_mat(image: np.ndarray, geometry: MatGeometry, min_markers: int = 3) -> MarkerFix:
    """Find the markers and fit the homography image -> mat mm; `message` says what is wrong, if anything."""
    found = find_markers(image, geometry)
    missing = tuple(m.id for m in geometry.markers if m.id not in found)
    if len(found) < min_markers:
        return MarkerFix(found, None, missing, None, _missing_message(geometry, missing, len(found)))
    src, dst = marker_correspondences(found, geometry)
    homography, _mask = cv2.findHomography(src, dst, 0)
    if homography is None or not is_usable_homography(homography):
        return MarkerFix(found, None, missing, None,
                         "the markers were found but do not fit a flat mat: lay the mat flat and check it is not folded.")
    error = reprojection_error(homography, src, dst)
    message = None
    if error > MAX_REPROJECTION_PX:
        message = (f"the markers disagree by {error:.1f} px: the mat is not flat or a marker is from another print; "
                   "flatten the mat and print it again if that does not help.")
    elif missing:
        message = _missing_message(geometry, missing, len(found))
    return MarkerFix(found, homography, missing, error, message)


def _missing_message(geometry: MatGeometry, missing: tuple[int, ...], found_count: int) -> str:
    """Say which markers were not seen and what to do about it."""
    if found_count == 0:
        return ("no mat markers found: point the camera at the whole mat, switch on the light, "
                "and check the mat is the one `companion calibrate mat` printed.")
    names = ", ".join(f"marker {i} ({geometry.marker(i).corner} corner)" for i in missing)  # type: ignore[union-attr]
    return f"{names} not seen: make sure the whole mat is in the picture and nothing covers its corners."


def is_usable_homography(homography: np.ndarray) -> bool:
    """Whether a 3x3 homography is finite and far from singular."""
    matrix = np.asarray(homography, dtype=np.float64)
    if matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)):
        return False
    # The condition number grows without bound as the matrix approaches singular; 1e12 leaves room for
    # a pixel->mm scale (about 1e-1) times a perspective term (about 1e-4).
    return bool(abs(np.linalg.det(matrix)) > 1e-15 and np.linalg.cond(matrix) < 1e12)


def project(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a homography to (N, 2) points."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, np.asarray(homography, dtype=np.float64)).reshape(-1, 2)


def reprojection_error(homography: np.ndarray, image_points: np.ndarray, mat_points: np.ndarray) -> float:
    """Largest distance in image pixels between the found corners and where the mat says they are."""
    back = project(np.linalg.inv(homography), mat_points)
    return float(np.max(np.linalg.norm(back - image_points, axis=1)))
