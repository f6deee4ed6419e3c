"""The seats on the Pi: gpiozero buttons, LEDs and buzzer. Importing this package touches no pins.

`attach(session, settings)` opens the board and connects it to the session;
`press_from_phone(board, session, seat)` is the phone's on-screen button (see hardware/link.py).
"""

from __future__ import annotations

from hardware.link import attach, press_from_phone

__all__ = ["attach", "press_from_phone"]
