"""One round of Rescue Animals played on the phone pages, in headless Chromium, against a real server."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
PIN = "2468"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
# The README's picture: PHONE_SCREENSHOT=docs/phone.png python3 -m pytest tests/web/test_browser.py
SCREENSHOT_ENV = "PHONE_SCREENSHOT"

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM} (apt install chromium)")


@pytest.fixture
def browser():
    """A fresh headless Chromium with its own profile folder."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=ARGS, viewport=PHONE,
            device_scale_factor=2, is_mobile=True, has_touch=True)
        try:
            yield context
        finally:
            context.close()


def tap_dice(page, dice: list[dict]) -> None:
    """Tap each die, then the face it shows (the way a player enters dice on the phone)."""
    from playwright.sync_api import expect

    for index, die in enumerate(dice):
        page.locator("#my-dice .die-button").nth(index).tap()
        page.locator(f"#face-picker button.face[aria-label='{die['value']}']").tap()
        expect(page.locator("#my-dice .die-button").nth(index)).to_have_attribute(
            "aria-label", f"die {index + 1}: {die['colour']} {die['value']}")


def test_a_round_on_the_phone_pages(start_server, browser, meeting, tmp_path):
    """Set up on the phone, join as Ana, tap dice, press Rescuing!, see the result; Ben takes the last card."""
    from playwright.sync_api import expect

    server = start_server()
    ana = browser.new_page()
    problems: list[str] = []
    ana.on("pageerror", lambda error: problems.append(str(error)))
    ana.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)

    # The host sets up the game on a phone.
    ana.goto(server.url + "/setup")
    for index, name in enumerate(["Ana", "Ben", "Cy"]):
        ana.locator("#players input").nth(index).fill(name)
    ana.select_option("#leader", "0")
    ana.fill("#pin", "1111")
    ana.get_by_role("button", name="Start the game").click()
    expect(ana.locator("#setup-error")).to_have_text("That is not the table PIN; the host screen shows the right one.")
    ana.fill("#pin", PIN)
    ana.get_by_role("button", name="Start the game").click()

    # Ana joins her seat: the join page lists the seats.
    ana.wait_for_url("**/join")
    ana.get_by_role("link", name="Ana (Leader)").click()
    ana.wait_for_url("**/table?seat=0")
    ana.locator("#my-name").wait_for()
    expect(ana.locator("#my-name")).to_have_text("Ana, your dice")
    ana.locator("text=Go! Roll your 5 dice").wait_for(timeout=5000)
    expect(ana.locator("#round")).to_have_text("1 of 22")
    expect(ana.locator("#gray")).to_have_text("beside the deck")

    # A press with no dice yet is refused, and the phone says why.
    ana.locator("#rescue").tap()
    ana.locator("#refusal").wait_for()
    expect(ana.locator("#refusal")).to_have_text("Not a claim: Ana's dice have not been read yet.")

    # Ana taps dice that meet the first card, and the page says so.
    state = server.get("/api/state")
    card = state["display"][0]
    dice = [{**d, "seat": 0} for d in meeting(state, 0, card["id"])]
    tap_dice(ana, dice)
    # .first: the setup page deals a random deck, whose display may hold two copies of one card.
    ana.locator(f"article.card.met[data-card='{card['id']}']").first.wait_for()
    expect(ana.locator("#message")).to_have_text("Your dice meet a card: press Rescuing! now!")
    screenshot = Path(os.environ.get(SCREENSHOT_ENV) or tmp_path / "phone.png")
    ana.evaluate("window.scrollTo(0, 0)")
    ana.screenshot(path=str(screenshot), full_page=True, clip={"x": 0, "y": 0, "width": 390, "height": 1180})
    assert screenshot.stat().st_size > 10_000

    ana.locator("#rescue").tap()
    ana.locator("#race-result").wait_for()
    expect(ana.locator("#race-result")).to_have_text(f"Ana won the race and rescued {card['name']}.")
    ana.locator("#countdown").wait_for()  # Ready, Set, Go! on every phone

    # Ben, on his own phone, taps dice for the other card and wins it.
    ben = browser.new_page()
    ben.on("pageerror", lambda error: problems.append(str(error)))
    ben.goto(server.url + "/table?seat=1")
    ben.locator("text=Go! Roll your 5 dice").wait_for(timeout=5000)
    state = server.get("/api/state")
    other = state["display"][0]
    tap_dice(ben, [{**d, "seat": 1} for d in meeting(state, 1, other["id"])])
    ben.locator("#rescue").tap()

    # The round is over on every phone: round 2, the Leader passes to Ben, Cy took the gray die.
    expect(ana.locator("#round")).to_have_text("2 of 22")
    expect(ana.locator("#leader")).to_have_text("Ben")
    expect(ana.locator("#gray")).to_have_text("Cy")
    expect(ana.locator("#seats [data-seat='0']")).to_contain_text("Rescued 1")
    expect(ana.locator("#seats [data-seat='2']")).to_contain_text("Rescued 0")
    ana.goto(server.url + "/scoreboard")
    expect(ana.locator("#scores tbody tr")).to_have_count(3)
    expect(ana.locator("#score-status")).to_contain_text("Scores so far (round 2 of 22)")
    # The refused PIN (403) and the refused press (409) are meant; nothing else may fail.
    expected = ("status of 403", "status of 409")
    assert [p for p in problems if not any(e in p for e in expected)] == []


def test_the_catalogue_page_adds_a_card_with_the_pin(start_server, browser):
    """The owner adds a card from the phone; a wrong requirement gets the catalogue's sentence."""
    from playwright.sync_api import expect

    server = start_server()
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(server.url + "/catalogue")
    expect(page.locator("#catalogue-note")).to_contain_text("This is a SAMPLE deck")
    form = page.locator("#card-form")
    for name, value in {"id": "kea", "name": "Kea", "latin": "Nestor notabilis", "area": "New Zealand",
                        "requirement": "B9", "pin": PIN}.items():
        form.locator(f"input[name={name}]").fill(value)
    form.get_by_role("button", name="Save the card").click()
    expect(page.locator("#card-error")).to_contain_text("card 'kea': field 'requirement' is wrong")
    form.locator("input[name=requirement]").fill("B1 W1 W*")
    form.get_by_role("button", name="Save the card").click()
    expect(page.locator("#cards")).to_contain_text("Kea (Nestor notabilis, New Zealand)")
    assert server.get("/api/catalogue")["total"] == 55
    assert problems == []


def expect_picture(page, selector: str, timeout_s: float = 20.0) -> None:
    """Wait until the image `selector` has loaded a picture (the pages' CSP forbids eval, so poll from here)."""
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if page.locator(selector).evaluate("(image) => image.complete && image.naturalWidth") > 0:
            return
        time.sleep(0.2)
    raise AssertionError(f"{selector} showed no picture in {timeout_s:.0f} s")


def test_the_camera_pages_on_the_simulated_table(start_server, browser):
    """With the simulator as camera: the table page says the camera reads the dice and shows each seat's reading;
    Roll for me throws the simulated dice; the camera page shows the live view; the calibrate page calibrates."""
    from playwright.sync_api import expect

    server = start_server(source="sim?seats=3&size=960x540&fps=8")
    status, _ = server.post("/api/start", {"pin": PIN, "players": ["Ana", "Ben", "Cy"], "leader": 0, "seed": 3})
    assert status == 200
    problems: list[str] = []
    page = browser.new_page()
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.goto(f"{server.url}/table?seat=1")
    expect(page.locator("#camera-text")).to_contain_text("The camera reads the dice", timeout=20000)
    expect(page.locator(".seat[data-seat='1'] .camera-reading .die").first).to_be_visible(timeout=20000)
    before = server.get("/api/state")["seats"][1]["dice"]
    page.locator("#roll-for-me").click()
    server.wait_for(lambda state: state["seats"][1]["dice"] and state["seats"][1]["dice"] != before, timeout=40)
    page.goto(f"{server.url}/camera")
    expect(page.locator("#readings .seat")).to_have_count(3, timeout=20000)
    expect_picture(page, "#live")
    page.goto(f"{server.url}/calibrate")
    page.fill("#calibrate-pin", PIN)
    page.locator("#calibrate").click()
    expect(page.locator("#result-title")).to_contain_text("mat was found", timeout=30000)
    expect_picture(page, "#annotated")
    assert problems == []
