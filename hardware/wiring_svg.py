"""Draw the wiring picture (docs/wiring.svg) from the [pins] settings: `python3 -m hardware.wiring_svg`."""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

from gpiozero import pi_info

from companion.settings import SeatPins
from hardware.wiring import HEADER_MODEL, Wire, wiring

ROW_H = 26
TOP = 70
HEADER_X = 150  # the odd pins' column; the even pins are one column to the right
COL_W = 34
PART_X = 560
PART_W = 250
PART_H = 34
SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#e377c2", "#7f7f7f")
OTHER_COLOURS = {"buzzer": "#8c564b", "host button": "#17becf"}
GROUND = "#333333"


def wiring_svg(pins: SeatPins) -> str:
    """The wiring of `pins` as an SVG picture: the 40-pin header, each part, its signal and ground wires."""
    wires = wiring(pins)
    height = max(TOP + 20 * ROW_H + 60, TOP + len(wires) * (PART_H + 12) + 60)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="880" height="{height}" viewBox="0 0 880 {height}" '
        'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="#ffffff"/>',
        '<text x="20" y="28" font-size="17" font-weight="bold">Wiring of the seats '
        '(BCM GPIO numbers; header pins as seen from above, pin 1 top left)</text>',
        '<text x="20" y="48" fill="#555">Buttons: GPIO to one leg, ground to the other (the Pi\'s pull-up '
        'is used). LEDs: GPIO through a 330 Ω resistor to the long leg, short leg to ground.</text>',
    ]
    for index, wire in enumerate(wires):
        out += _part(index, wire)
    out += _header(wires)  # on top of the wires, so every pin and name stays readable
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _pin_xy(number: int) -> tuple[float, float]:
    """Where header pin `number` is drawn."""
    row, column = (number - 1) // 2, (number - 1) % 2
    return HEADER_X + column * COL_W, TOP + row * ROW_H + ROW_H / 2


def _header(wires: list[Wire]) -> list[str]:
    """The 40-pin header with every pin's name; the pins in use are filled."""
    header = pi_info(HEADER_MODEL).headers["J8"].pins
    used = {w.header_pin for w in wires} | {w.ground_pin for w in wires}
    out = [f'<rect x="{HEADER_X - 16}" y="{TOP - 6}" width="{COL_W + 32}" height="{20 * ROW_H + 12}" '
           'rx="6" fill="#1b5e20" opacity="0.9"/>']
    for number, info in header.items():
        x, y = _pin_xy(number)
        fill = "#ffd54f" if number in used else "#c8c8c8"
        out.append(f'<circle cx="{x}" cy="{y}" r="7" fill="{fill}" stroke="#000" stroke-width="0.8"/>')
        out.append(f'<text x="{x}" y="{y + 3.5}" font-size="8" text-anchor="middle">{number}</text>')
        label_x, anchor = (x - 24, "end") if number % 2 else (x + 24, "start")
        weight = ' font-weight="bold"' if number in used else ""
        out.append(f'<text x="{label_x}" y="{y + 4}" text-anchor="{anchor}"{weight} stroke="#fff" '
                   f'stroke-width="3" paint-order="stroke">{escape(info.name)}</text>')
    return out


def _part(index: int, wire: Wire) -> list[str]:
    """One part's box, and its signal wire (coloured) and ground wire (dashed) to the header."""
    colour = _colour(wire.what)
    top = TOP + index * (PART_H + 12)
    signal_y, ground_y = top + 11, top + PART_H - 9
    sx, sy = _pin_xy(wire.header_pin)
    gx, gy = _pin_xy(wire.ground_pin)
    what = wire.what + (" + 330 Ω" if "LED" in wire.what else "")
    return [
        f'<rect x="{PART_X}" y="{top}" width="{PART_W}" height="{PART_H}" rx="5" fill="#fafafa" '
        f'stroke="{colour}" stroke-width="2"/>',
        f'<text x="{PART_X + 10}" y="{top + 15}" font-weight="bold" fill="{colour}">{escape(what)}</text>',
        f'<text x="{PART_X + 10}" y="{top + 29}" fill="#444">GPIO{wire.gpio} = pin {wire.header_pin}; '
        f'ground = pin {wire.ground_pin}</text>',
        _curve(sx, sy, PART_X, signal_y, colour, ""),
        _curve(gx, gy, PART_X, ground_y, GROUND, ' stroke-dasharray="4 3" opacity="0.55"'),
    ]


def _curve(x1: float, y1: float, x2: float, y2: float, colour: str, extra: str) -> str:
    """A wire from a header pin to a part, leaving the header to the right."""
    mid = (max(x1, HEADER_X + COL_W) + 120 + x2) / 2
    return (f'<path d="M{x1},{y1} C{mid},{y1} {mid},{y2} {x2},{y2}" fill="none" stroke="{colour}" '
            f'stroke-width="2"{extra}/>')


def _colour(what: str) -> str:
    """The colour of a part's wire: one per seat, and one each for the buzzer and the host button."""
    if what.startswith("seat "):
        return SEAT_COLOURS[(int(what.split()[1]) - 1) % len(SEAT_COLOURS)]
    return OTHER_COLOURS.get(what, "#000000")


def main(argv: list[str] | None = None) -> int:
    """Write the picture of the default wiring to the path given (default docs/wiring.svg)."""
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0]) if argv else Path(__file__).resolve().parents[1] / "docs" / "wiring.svg"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(wiring_svg(SeatPins()), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
