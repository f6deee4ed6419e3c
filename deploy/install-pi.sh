#!/usr/bin/env bash
# Install the rescue table companion on Raspberry Pi OS (Bookworm or newer) as a service that
# starts at boot, comes back after a crash and logs to the journal.
#
#   git clone <this repository> ~/rescue-companion && cd ~/rescue-companion
#   ./deploy/install-pi.sh            # asks for sudo where it must
#
# Run it as the user the companion should run as (not root). Safe to run again after an update.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${VENV:-$REPO/.venv}"
SETTINGS="${SETTINGS:-$HOME/.config/rescue-companion/settings.toml}"
UNIT=/etc/systemd/system/rescue-companion.service
RUN_AS="$(id -un)"

if [ "$(id -u)" -eq 0 ]; then
    echo "Run this as the user the companion should run as (e.g. pi), not as root; it uses sudo itself." >&2
    exit 1
fi

echo "== 1/5 system packages (camera, GPIO, Python venv)"
# python3-picamera2 and python3-lgpio come from Raspberry Pi OS only (they are not on PyPI in a form
# that builds easily); the venv below sees them through --system-site-packages.
sudo apt-get update
sudo apt-get install -y --no-install-recommends \
    python3-venv python3-pip python3-picamera2 python3-lgpio python3-numpy \
    libopenblas0 fonts-dejavu-core

echo "== 2/5 groups: $RUN_AS in gpio (buttons, LEDs) and video (camera)"
for group in gpio video; do
    if getent group "$group" >/dev/null; then
        sudo adduser "$RUN_AS" "$group" >/dev/null
    else
        echo "   (no group $group on this system; skipped)"
    fi
done

echo "== 3/5 virtual environment $VENV (with the system's picamera2, lgpio and numpy)"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv --system-site-packages "$VENV"
fi
"$VENV/bin/pip" install --upgrade pip
"$VENV/bin/pip" install -e "$REPO"

echo "== 4/5 settings $SETTINGS"
if [ ! -f "$SETTINGS" ]; then
    mkdir -p "$(dirname "$SETTINGS")"
    cat > "$SETTINGS" <<'TOML'
# Settings of the rescue table companion (see README, "Settings" and "Wiring").
# Every line may be left out; these are the defaults.

[camera]
source = "auto"            # picamera2, usb:0, sim, ... ; auto = the camera module, else USB, else simulator

[pins]
# BCM GPIO numbers, in seat order (seat 1 first; seats go clockwise round the table).
buttons = [5, 6, 13, 19, 26]
leds = [12, 16, 20, 21, 18]
buzzer = 23                # an active 3.3 V buzzer; a pin with nothing on it does no harm
host_button = 24           # short press: new game when one is over; hold: undo
muted = false
pin_factory = "auto"       # auto: the Pi's GPIO (lgpio); "mock" for the on-screen demo; "none" for no pins
TOML
    echo "   wrote $SETTINGS"
else
    echo "   kept the existing $SETTINGS"
fi

echo "== 5/5 service rescue-companion"
sed -e "s|@USER@|$RUN_AS|g" -e "s|@HOME@|$HOME|g" -e "s|@REPO@|$REPO|g" \
    -e "s|@VENV@|$VENV|g" -e "s|@SETTINGS@|$SETTINGS|g" \
    "$REPO/deploy/rescue-companion.service" | sudo tee "$UNIT" >/dev/null
sudo systemctl daemon-reload
sudo systemctl enable rescue-companion.service
sudo systemctl restart rescue-companion.service

echo
echo "Done. Check every part with:   $VENV/bin/companion doctor --settings $SETTINGS"
echo "   (log out and in once first, so that your own shell is in the gpio and video groups)"
echo "Follow the log with:           journalctl -u rescue-companion -f"
echo "The phones' address and QR code are at the top of that log."
