/* The camera page: the live view, each seat's dice as read (unsure ones marked), zone pictures, corrections. */
"use strict";

(() => {
  const { el, api, pin, setPin, die, say } = Companion;
  const $ = (id) => document.getElementById(id);
  let paused = false;
  let snap = null;
  let correcting = null;
  let dice = [];

  /** Refresh the live picture (a new JPEG of the newest frame) while the camera runs. */
  function refreshPicture(status) {
    $("live-view").hidden = !status.camera;
    if (!status.camera || paused) return;
    $("live").src = `/api/camera/frame.jpg?t=${Date.now()}`;
  }

  /** One seat's reading: its dice (unsure ones marked "?"), the state, and a picture on demand. */
  function reading(seat) {
    const name = snap && snap.seats[seat.seat] ? snap.seats[seat.seat].name : `seat ${seat.seat + 1}`;
    const picture = el("img", { class: "zone", alt: `Seat ${seat.seat + 1}'s zone`, width: "320", hidden: true });
    return el("div", { class: "seat", "data-seat": seat.seat },
      el("h3", { text: `${name} (seat ${seat.seat + 1}): ${seat.status}` }),
      el("div", { class: "dice-row small" }, seat.dice.length
        ? seat.dice.map((d) => el("span", { class: d.unsure ? "unsure" : "sure", title: d.unsure ? "the camera is unsure of this die" : "" },
          die(d.colour, d.value), d.unsure ? el("b", { text: "?" }) : null))
        : el("span", { class: "hint", text: "no dice seen" })),
      seat.unsure ? el("p", { class: "refusal", text: `${seat.unsure} ${seat.unsure === 1 ? "die is" : "dice are"} unsure: check and correct below if wrong.` }) : null,
      seat.note ? el("p", { class: "hint", text: seat.note }) : null,
      el("button", { type: "button", class: "secondary", text: "Show the picture of this zone",
        onclick: () => { picture.src = `/api/camera/zone/${seat.seat}.jpg?t=${Date.now()}`; picture.hidden = false; } }),
      picture);
  }

  async function poll() {
    const r = await api("/api/camera");
    if (r.ok) {
      say($("camera-message"), r.data.message);
      // Zones of the mat with no player in this game are left out (their dice are not the game's).
      const playing = snap && snap.seats && snap.seats.length ? r.data.seats.filter((s) => s.seat < snap.seats.length) : r.data.seats;
      $("readings").replaceChildren(...playing.map(reading));
      if (!r.data.seats.length) $("readings").append(el("p", { class: "hint", text: r.data.camera ? "No readings yet." : "The phones enter the dice on the Table page." }));
      refreshPicture(r.data);
    }
    const s = await api("/api/state");
    if (s.ok) { snap = s.data; renderCorrect(); }
  }

  /** The correction panel: seat buttons, then the seat's dice to tap through 1-6. */
  function renderCorrect() {
    if (!snap || !snap.seats) return;
    $("correct-seats").replaceChildren(...snap.seats.map((s) => el("button", { type: "button", class: `seat-button${correcting === s.seat ? " picked" : ""}`,
      text: `${s.name} (seat ${s.seat + 1})`, onclick: () => {
        correcting = s.seat;
        dice = (s.dice.length ? s.dice : s.dice_set).map((d) => ({ colour: d.colour, value: d.value }));
        renderCorrect();
      } })));
    $("correct-send").hidden = correcting === null;
    $("correct-dice").replaceChildren(...dice.map((d, index) => el("button", { type: "button", class: "die-button",
      "aria-label": `die ${index + 1}: ${d.colour} ${d.value}`, onclick: () => { d.value = d.value % 6 + 1; renderCorrect(); } },
      die(d.colour, d.value))));
  }

  $("correct-send").addEventListener("click", async () => {
    const typed = $("correct-pin").value.trim();
    if (typed) setPin(typed);
    const r = await api("/api/act", { kind: "correct", seat: correcting, dice });
    say($("correct-error"), r.ok ? "" : r.data.error);
    if (r.ok) { snap = r.data; correcting = null; dice = []; renderCorrect(); }
  });
  $("pause").addEventListener("click", () => { paused = !paused; $("pause").textContent = paused ? "Resume" : "Pause"; });
  $("correct-pin").value = pin();
  poll();
  setInterval(poll, 1000);
})();
