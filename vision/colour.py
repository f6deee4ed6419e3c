"""Colour profiles: the named body colours of a table's dice, and naming a die's colour from them.

A profile maps colour names to one or more reference colours (BGR, 0-255). A die's body colour is
named by the nearest reference in CIE Lab, where lightness (white / gray / black) and hue (red,
yellow, green, blue, purple) both count. `default_profile()` is a built-in guess for common dice
under ordinary light; `learn()` makes a profile from one sample per colour taken under the real
light (calibration does that), which is what tells a gray die from a white one in a dim room.

Light changes after calibration (a lamp switched on, a cloud, the falloff towards the table's
edge) scale a die and the table beside it alike. So a profile that also knows the table's colour
at learning time (`table`) compares each die with the table just around it: the die's colour is
multiplied by table-at-learning / table-now, per channel, before it is named.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion.errors import CompanionError

# Built-in references (BGR). Ivory counts as white; "black" dice often look dark gray on camera.
DEFAULT_COLOURS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "white": ((235, 235, 235), (200, 225, 235), (185, 195, 200)),
    "gray": ((128, 128, 128), (110, 115, 115)),
    "black": ((30, 30, 30), (55, 50, 50)),
    "red": ((40, 40, 200), (50, 30, 150)),
    "yellow": ((40, 210, 230), (60, 180, 200)),
    "green": ((70, 160, 40), (90, 120, 30)),
    "blue": ((180, 90, 30), (140, 60, 20)),
    "purple": ((130, 40, 100), (90, 30, 70)),
}


class ColourProfileError(CompanionError, ValueError):
    """A colour profile file or sample set is not usable; the message says which entry and why."""


@dataclass(frozen=True)
class ColourProfile:
    """Names of die body colours and their reference colours (BGR)."""

    colours: dict[str, tuple[tuple[float, float, float], ...]] = field(default_factory=dict)
    # The table's colour (BGR) when the references were taken; None: compare raw colours.
    table: tuple[float, float, float] | None = None

    def __post_init__(self) -> None:
        """Check that every name has at least one three-number reference colour."""
        if not self.colours:
            raise ColourProfileError("a colour profile needs at least one colour; add e.g. white: [235, 235, 235].")
        for name, refs in self.colours.items():
            if not refs or any(len(ref) != 3 for ref in refs):
                raise ColourProfileError(
                    f"colour {name!r} needs reference colours of three numbers (B, G, R), got {refs!r}."
                )
        if self.table is not None and (len(self.table) != 3 or min(self.table) <= 0):
            raise ColourProfileError(f"the table colour must be three positive numbers (B, G, R), got {self.table!r}.")

    @property
    def names(self) -> tuple[str, ...]:
        """The colour names of this profile."""
        return tuple(self.colours)

    def classify(self, bgr: np.ndarray | tuple[float, float, float],
                 table: np.ndarray | tuple[float, float, float] | None = None) -> tuple[str, float]:
        """Name a body colour (seen next to `table`); confidence is low between two profile colours."""
        tables = None if table is None else np.asarray(table, np.float32).reshape(1, 3)
        return self.classify_many(np.asarray(bgr, np.float32).reshape(1, 3), tables)[0]

    def classify_many(self, bgr: np.ndarray, tables: np.ndarray | None = None) -> list[tuple[str, float]]:
        """Name many body colours at once ((n, 3) BGR, with the (n, 3) table colour beside each)."""
        colours = np.asarray(bgr, np.float32).reshape(-1, 3)
        if len(colours) == 0:
            return []
        if self.table is not None and tables is not None:
            colours = colours * np.stack([relight_gain(self.table, t) for t in np.asarray(tables).reshape(-1, 3)])
        lab = _weighted(_lab(colours))
        names = list(self.colours)
        refs = self._references()
        # Distance of each colour to the nearest reference of each name: (n, names).
        dist = np.stack([np.linalg.norm(lab[:, None, :] - refs[name][None], axis=2).min(axis=1) for name in names],
                        axis=1)
        if len(names) == 1:
            return [(names[0], 1.0)] * len(colours)
        order = np.argsort(dist, axis=1)
        rows = np.arange(len(colours))
        d1, d2 = dist[rows, order[:, 0]], dist[rows, order[:, 1]]
        # 1 when the nearest colour is much nearer than the second, 0 when they tie.
        confidence = np.clip((d2 - d1) / np.maximum(d2, 1e-6) * 2.0, 0.0, 1.0)
        return [(names[i], float(c)) for i, c in zip(order[:, 0].tolist(), confidence.tolist())]

    def _references(self) -> dict[str, np.ndarray]:
        """The reference colours in weighted Lab, computed once per profile."""
        cached = self.__dict__.get("_lab_cache")
        if cached is None:
            cached = {name: _weighted(_lab(np.asarray(refs, np.float32))) for name, refs in self.colours.items()}
            object.__setattr__(self, "_lab_cache", cached)
        return cached

    def to_dict(self) -> dict:
        """The profile as plain JSON/TOML-able values."""
        data: dict = {"colours": {name: [list(map(float, ref)) for ref in refs] for name, refs in self.colours.items()}}
        if self.table is not None:
            data["table"] = [float(v) for v in self.table]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "ColourProfile":
        """A profile from `to_dict()` output; names the entry that is wrong."""
        if not isinstance(data, dict) or not isinstance(data.get("colours"), dict):
            raise ColourProfileError('a colour profile must be a table with a "colours" table of name -> [[B, G, R], ...].')
        colours = {}
        for name, refs in data["colours"].items():
            try:
                colours[str(name)] = tuple(tuple(float(v) for v in ref) for ref in refs)
            except (TypeError, ValueError):
                raise ColourProfileError(
                    f"colour {name!r}: reference colours must be lists of three numbers, got {refs!r}."
                ) from None
        table = data.get("table")
        if table is not None:
            try:
                table = tuple(float(v) for v in table)
            except (TypeError, ValueError):
                raise ColourProfileError(f"the table colour must be a list of three numbers, got {table!r}.") from None
        return cls(colours, table)


def default_profile() -> ColourProfile:
    """The built-in profile: white (ivory too), gray, black, red, yellow, green, blue, purple."""
    return _DEFAULT


def _make_default() -> ColourProfile:
    """Build the built-in profile (once)."""
    return ColourProfile({name: tuple(tuple(map(float, r)) for r in refs) for name, refs in DEFAULT_COLOURS.items()})


def learn(samples: dict[str, np.ndarray | tuple[float, float, float]],
          table: np.ndarray | tuple[float, float, float] | None = None) -> ColourProfile:
    """A profile from one sample per colour name (a BGR colour, or a BGR patch whose median is used),
    and optionally the table's colour beside them, which makes the profile follow changes of light."""
    if not samples:
        raise ColourProfileError("learning a colour profile needs at least one sample colour.")
    colours = {}
    for name, sample in samples.items():
        values = np.asarray(sample, np.float32)
        if values.size < 3 or values.shape[-1] != 3:
            raise ColourProfileError(f"sample for {name!r} must be BGR values (..., 3), got shape {values.shape}.")
        colours[name] = (tuple(float(v) for v in np.median(values.reshape(-1, 3), axis=0)),)
    if table is not None:
        values = np.asarray(table, np.float32)
        if values.size < 3 or values.shape[-1] != 3:
            raise ColourProfileError(f"the table sample must be BGR values (..., 3), got shape {values.shape}.")
        table = tuple(max(1.0, float(v)) for v in np.median(values.reshape(-1, 3), axis=0))
    return ColourProfile(colours, table)


def relight_gain(reference: np.ndarray | tuple[float, float, float],
                 now: np.ndarray | tuple[float, float, float]) -> np.ndarray:
    """Per-channel gain that undoes a change of light seen on the table (clipped to a sane range)."""
    ref = np.maximum(np.asarray(reference, np.float32).reshape(3), 1.0)
    cur = np.maximum(np.asarray(now, np.float32).reshape(3), 1.0)
    return np.clip(ref / cur, 0.25, 4.0)


def _lab(bgr: np.ndarray) -> np.ndarray:
    """CIE Lab (D65; L 0-100, a and b about -128..127) of (n, 3) BGR values 0-255.

    Worked out in numpy: OpenCV's float conversion costs ~1 ms a call however few the pixels."""
    rgb = np.clip(np.asarray(bgr, np.float64).reshape(-1, 3)[:, ::-1] / 255.0, 0.0, 1.0)
    linear = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    xyz = linear @ _RGB_TO_XYZ.T / _WHITE
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16.0 / 116.0)
    lab = np.stack([116.0 * f[:, 1] - 16.0, 500.0 * (f[:, 0] - f[:, 1]), 200.0 * (f[:, 1] - f[:, 2])], axis=1)
    return lab.astype(np.float32)


_RGB_TO_XYZ = np.array([[0.412453, 0.357580, 0.180423],
                        [0.212671, 0.715160, 0.072169],
                        [0.019334, 0.119193, 0.950227]])
_WHITE = np.array([0.950456, 1.0, 1.088754])


def _weighted(lab: np.ndarray) -> np.ndarray:
    """Lab with hue counted a little more than lightness (light varies more than pigment)."""
    return lab * np.array([0.8, 1.2, 1.2], np.float32)


_DEFAULT = _make_default()
