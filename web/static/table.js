/* The table page: display cards, dice, the race button of this phone's seat, the countdown. */
"use strict";

(() => {
  const { el, api, pin, setPin, live, die, mySeat, forgetSeat, say } = Companion;
  const $ = (id) => document.getElementById(id);
  let snap = null;
  let seat = null;
  let pickingDie = null;
  let draft = null;
  let countdownTimer = null;
  let catalogue = null;
  let revealPicked = [];
  let localRefusal = null;
  let camera = null;

  /** A reason as a sentence: a capital first letter and a full stop. */
  const sentence = (text) => {
    const t = String(text || "").trim();
    return t ? t[0].toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? "" : ".") : "";
  };
  const nameOf = (s) => (snap && snap.seats[s] ? snap.seats[s].name : `seat ${s + 1}`);
  const cardName = (id) => {
    return (snap.card_names && snap.card_names[id]) || id;
  };

  /** Draw a card's dice requirement as dice pictures, with the words under them. */
  function requirement(symbols) {
    return el("div", { class: "requirement" },
      el("div", { class: "dice-row small" }, symbols.dice.map((d) => die(d.colour, d.value, d.label))),
      el("p", { class: "words", text: (symbols.special ? "Special: " : "") + symbols.words }));
  }

  /** One display card, marked for this phone's seat. */
  function cardView(card, mine) {
    const node = el("article", { class: "card", "data-card": card.id },
      el("h3", { text: card.name }),
      el("p", { class: "latin", text: `${card.latin} · ${card.area}` }),
      el("p", { class: "points", text: `Protection ${card.protection} · Bonus ${card.bonus} per pair` }),
      requirement(card.symbols));
    if (mine) {
      const hint = mine.hints[card.id];
      if (mine.satisfied.includes(card.id)) {
        node.classList.add("met");
        node.append(el("p", { class: "badge met", text: "✔ Your dice meet this card!" }));
      } else if (hint && hint.missing !== null) {
        node.append(el("p", { class: "badge", text: `${hint.missing} ${hint.missing === 1 ? "die" : "dice"} short: still need ${hint.open.join(", ")}` }));
      } else if (hint) {
        node.append(el("p", { class: "badge", text: "Your dice cannot meet this one." }));
      }
    }
    return node;
  }

  /** The hint of this seat for the card it is closest to (to highlight dice to keep). */
  function bestHint(mine) {
    let best = null;
    for (const hint of Object.values(mine.hints || {})) {
      if (hint.missing === null) continue;
      if (!best || hint.missing < best.missing) best = hint;
    }
    return best;
  }

  function renderCounters() {
    $("round").textContent = snap.rounds_total ? `${snap.round} of ${snap.rounds_total}` : snap.round;
    $("deck").textContent = snap.deck_count;
    $("leader").textContent = nameOf(snap.leader);
    $("gray").textContent = snap.gray_holder === null ? "beside the deck" : nameOf(snap.gray_holder);
    $("sample-note").hidden = !snap.sample;
  }

  /** What this phone's player should do now, in words. */
  function nextStep(mine) {
    if (snap.phase === "over") return "The game is over! See the scores.";
    if (!mine) return snap.message;
    if (snap.phase === "reveal") return snap.demo ? "Dealing this round's cards…" : "Wait: the host lays out this round's cards.";
    if (snap.phase === "ready") return "Ready, Set… stop rolling and wait for Go!";
    if (snap.phase === "choosing") {
      return snap.choosing && snap.choosing.seat === seat ? "You won! Pick the animal you rescue." : snap.message;
    }
    if (mine.this_round.length && !mine.can_claim && mine.why_not && mine.why_not.includes("already rescued")) {
      return `You rescued ${mine.this_round.map(cardName).join(" and ")} this round. Wait for the next round.`;
    }
    if (mine.can_claim) return "Your dice meet a card: press Rescuing! now!";
    if (!mine.dice.length) return "Go! Roll your 5 dice and tap what they show (or use Roll for me).";
    return "Keep rolling. The highlighted dice are worth setting aside.";
  }

  function renderMessage(mine) {
    say($("message"), nextStep(mine));
  }

  function renderRace() {
    const race = snap.last_race;
    if (!race || race.winner === null || race.winner === undefined) {
      say($("race-result"), race && race.refused && race.refused.length ? "No one could claim: every press was refused." : "");
      return;
    }
    let text = `${nameOf(race.winner)} won the race`;
    const rescued = snap.seats[race.winner].rescued;
    if (snap.phase !== "choosing" && rescued.length) text += ` and rescued ${cardName(rescued[rescued.length - 1])}`;
    if (race.gap_ms !== null && race.gap_ms !== undefined) text += ` — photo finish: ${race.gap_ms.toFixed(0)} ms ahead`;
    if (race.tied && race.tied.length > 1) text += `. Tie between ${race.tied.map(nameOf).join(" and ")}, decided by ${race.decided_by.replace("tie: ", "")}`;
    text += ".";
    say($("race-result"), text);
  }

  function renderRefusal(mine) {
    let text = "";
    if (mine && mine.refusal && snap.server_time - mine.refusal.at < 8) text = `Not a claim: ${sentence(mine.refusal.reason)}`;
    if (localRefusal && performance.now() - localRefusal.at < 8000) text = `Not a claim: ${sentence(localRefusal.reason)}`;
    say($("refusal"), text);
  }

  let lastPhase = null;

  /** "Ready…" then "Set…" while the countdown runs; "Go!" for a moment when the race opens. */
  function renderCountdown() {
    clearInterval(countdownTimer);
    clearTimeout(countdownTimer);
    const box = $("countdown");
    const wentOpen = lastPhase === "ready" && snap.phase === "open";
    lastPhase = snap.phase;
    if (wentOpen) {
      box.textContent = "Go!";
      box.className = "countdown go";
      box.hidden = false;
      countdownTimer = setTimeout(() => { box.hidden = true; }, 900);
      return;
    }
    if (snap.phase !== "ready" || !snap.countdown) { box.hidden = true; return; }
    const ends = live.received + snap.countdown.ends_in_ms;
    const total = snap.countdown.total_ms;
    const tick = () => {
      const left = ends - performance.now();
      box.hidden = false;
      box.className = "countdown";
      box.textContent = left > total / 2 ? "Ready…" : "Set…";
    };
    tick();
    countdownTimer = setInterval(tick, 100);
  }

  function renderChoose() {
    const mineChoosing = snap.phase === "choosing" && snap.choosing && snap.choosing.seat === seat;
    $("choose").hidden = !mineChoosing;
    const box = $("choose-cards");
    box.replaceChildren();
    if (!mineChoosing) return;
    for (const id of snap.choosing.cards) {
      box.append(el("button", { type: "button", class: "primary big-button", "data-choose": id, text: `Rescue ${cardName(id)}`,
        onclick: async () => {
          const r = await api("/api/act", { kind: "choose", seat, card: id });
          if (!r.ok) say($("refusal"), r.data.error);
        } }));
    }
  }

  function renderDisplay(mine) {
    const box = $("display");
    box.replaceChildren();
    if (!snap.display.length) {
      box.append(el("p", { class: "hint", text: snap.phase === "over" ? "All animals are rescued." : "No cards on display yet." }));
    }
    for (const card of snap.display) box.append(cardView(card, mine));
  }

  function renderMySeat(mine) {
    $("my-seat").hidden = !mine || snap.phase === "over";
    $("pick-seat").hidden = !!mine || snap.phase === "over";
    if (!mine) {
      const buttons = $("seat-buttons");
      buttons.replaceChildren(...snap.seats.map((s) => el("button", { type: "button", class: "seat-button", text: s.name,
        onclick: () => { localStorage.setItem(`seat:${snap.game_id}`, String(s.seat)); seat = s.seat; render(); } })));
      return;
    }
    $("my-name").textContent = `${mine.name}, your dice`;
    renderDiceHint();
    const hint = bestHint(mine);
    const keep = new Set(hint ? hint.keep : []);
    // Until every die has a value the taps stay on this phone (a half-entered throw is no throw).
    const draftKey = `${snap.game_id}:${snap.round}:${mine.dice_set.length}`;
    if (!draft || draft.key !== draftKey || mine.dice.length) {
      draft = { key: draftKey, dice: mine.dice_set.map((d) => ({ colour: d.colour, value: null })) };
    }
    const dice = mine.dice.length ? mine.dice : draft.dice;
    const row = $("my-dice");
    row.replaceChildren(...dice.map((d, index) => {
      const button = el("button", { type: "button", class: `die-button${keep.has(index) && mine.dice.length ? " keep" : ""}${pickingDie === index ? " picking" : ""}`,
        "aria-label": `die ${index + 1}: ${d.colour} ${d.value || "not set"}`, onclick: () => { pickingDie = index; renderMySeat(mine); } },
        die(d.colour, d.value, "?"));
      return button;
    }));
    const picker = $("face-picker");
    picker.hidden = pickingDie === null;
    picker.replaceChildren();
    if (pickingDie !== null && dice[pickingDie]) {
      const colour = dice[pickingDie].colour;
      picker.append(el("span", { class: "hint", text: `Die ${pickingDie + 1} (${colour}) shows:` }));
      for (let value = 1; value <= 6; value++) {
        picker.append(el("button", { type: "button", class: "face", "aria-label": `${value}`, onclick: () => setDie(dice, pickingDie, value) },
          die(colour, value)));
      }
    }
    $("my-hint").textContent = hint && mine.dice.length && hint.missing > 0
      ? `Set aside the highlighted dice; roll the others (${hint.missing} still to come).` : "";
    $("roll-for-me").hidden = !snap.demo;
    const button = $("rescue");
    button.classList.toggle("ready", !!mine.can_claim);
    button.textContent = mine.can_claim ? "Rescuing!" : "Rescuing!";
    button.setAttribute("aria-describedby", "message");
  }

  /** One die tapped: send the whole throw once every die has a value. */
  async function setDie(dice, index, value) {
    const next = dice.map((d) => ({ colour: d.colour, value: d.value }));
    next[index].value = value;
    const missing = next.findIndex((d) => d.value === null);
    if (missing >= 0) {
      draft.dice = next;
      pickingDie = next.findIndex((d, i) => i > index && d.value === null);
      if (pickingDie < 0) pickingDie = missing;
      renderMySeat(snap.seats[seat]);
      $("my-hint").textContent = `Tap the other dice too: ${next.filter((d) => d.value === null).length} still to set.`;
      return;
    }
    pickingDie = index + 1 < dice.length && !snap.seats[seat].dice.length ? index + 1 : null;
    const r = await api("/api/act", { kind: "roll", seat, dice: next });
    if (r.ok) { localRefusal = null; renderRefusal(snap.seats[seat]); } else say($("refusal"), r.data.error);
  }

  /** How this phone's dice get in: read by the camera, or tapped. */
  function renderDiceHint() {
    $("dice-hint").textContent = camera && camera.calibrated && camera.running
      ? "The camera reads your dice. If it misreads them, tap a die, then the number it shows."
      : "Your dice: tap a die, then the number it shows.";
  }

  /** The camera's line: whether it reads the dice, or why the phones enter them. */
  function renderCamera() {
    renderDiceHint();
    say($("camera-text"), camera ? camera.message : "");
    $("camera-note").hidden = !camera;
  }

  /** What the camera read at one seat, with the dice it is unsure of marked, and the zone's picture on demand. */
  function cameraReading(s) {
    const read = camera && camera.seats ? camera.seats.find((r) => r.seat === s.seat) : null;
    if (!read) return null;
    const picture = el("img", { class: "zone", alt: `${s.name}'s zone as the camera sees it`, width: "240", hidden: true });
    return el("div", { class: "camera-reading" },
      el("span", { class: "hint", text: "Camera: " }),
      read.dice.map((d) => el("span", { class: d.unsure ? "unsure" : "sure", title: d.unsure ? "the camera is unsure of this die" : "" },
        die(d.colour, d.value), d.unsure ? el("b", { text: "?" }) : null)),
      read.unsure ? el("span", { class: "refusal", text: ` ${read.unsure} unsure: check it (the host can correct it on the Camera page).` }) : null,
      el("button", { type: "button", class: "secondary small", text: "Picture",
        onclick: () => { picture.src = `/api/camera/zone/${s.seat}.jpg?t=${Date.now()}`; picture.hidden = !picture.hidden; } }),
      picture);
  }

  async function pollCamera() {
    const r = await api("/api/camera");
    if (!r.ok) return;
    camera = r.data;
    renderCamera();
    if (snap && snap.phase !== "idle") renderSeats();
  }

  function renderSeats() {
    const box = $("seats");
    box.replaceChildren(...snap.seats.map((s) => {
      const tags = [];
      if (s.seat === snap.leader) tags.push("Leader");
      if (s.seat === snap.gray_holder) tags.push("gray die");
      if (s.seat === seat) tags.push("this phone");
      return el("div", { class: `seat${s.can_claim ? " can-claim" : ""}`, "data-seat": s.seat },
        el("h3", { text: s.name + (tags.length ? ` (${tags.join(", ")})` : "") }),
        el("div", { class: "dice-row small" }, s.dice.length ? s.dice.map((d) => die(d.colour, d.value)) : el("span", { class: "hint", text: "no dice yet" })),
        cameraReading(s),
        el("p", { text: s.satisfied.length ? `Meets: ${s.satisfied.map(cardName).join(", ")}` : (s.why_not && snap.phase === "open" ? s.why_not : "") }),
        el("p", { class: "hint", text: `Rescued ${s.rescued.length}${s.this_round.length ? ` (this round: ${s.this_round.map(cardName).join(", ")})` : ""}`
          + ` · ${snap.scores.seats[s.seat].total} points` }));
    }));
  }

  async function renderReveal() {
    const show = snap.phase === "reveal" && !snap.demo;
    $("reveal").hidden = !show;
    if (show && !$("host").dataset.opened) { $("host").open = true; $("host").dataset.opened = "yes"; }
    if (!show) { revealPicked = []; return; }
    if (!catalogue) { const r = await api("/api/catalogue"); if (r.ok) catalogue = r.data; else return; }
    $("reveal-count").textContent = `${revealPicked.length} of ${snap.display_size} picked`;
    $("reveal-cards").replaceChildren(...catalogue.card.map((card) => el("button", {
      type: "button", class: `reveal-card${revealPicked.includes(card.id) ? " picked" : ""}`, text: card.name,
      onclick: () => {
        const at = revealPicked.indexOf(card.id);
        if (at >= 0) revealPicked.splice(at, 1); else if (revealPicked.length < snap.display_size) revealPicked.push(card.id);
        renderReveal();
      } })));
  }

  function render() {
    if (!snap) return;
    const idle = snap.phase === "idle";
    $("no-game").hidden = !idle;
    $("game").hidden = idle;
    if (idle) return;
    if (seat === null || !snap.seats[seat]) seat = mySeat(snap.game_id);
    if (seat !== null && !snap.seats[seat]) seat = null;
    const mine = seat === null ? null : snap.seats[seat];
    document.body.classList.toggle("over", snap.phase === "over");
    $("see-scores").hidden = snap.phase !== "over";
    renderCounters();
    renderMessage(mine);
    renderCountdown();
    renderRace();
    renderRefusal(mine);
    renderChoose();
    renderDisplay(mine);
    renderMySeat(mine);
    renderSeats();
    renderReveal();
  }

  async function press(event) {
    event.preventDefault();
    if (seat === null) return;
    const r = await api("/api/act", { kind: "press", seat });
    localRefusal = r.ok ? null : { reason: (r.data.reason || r.data.error || "refused"), at: performance.now() };
    renderRefusal(snap ? snap.seats[seat] : null);
  }

  async function hostCall(path, body) {
    const typed = $("host-pin").value.trim();
    if (typed) setPin(typed);
    const r = await api(path, body || {});
    say($("host-error"), r.ok ? "" : r.data.error);
    return r;
  }

  $("rescue").addEventListener("pointerdown", press);
  $("rescue").addEventListener("click", (event) => { if (event.detail === 0) press(event); });
  $("roll-for-me").addEventListener("click", async () => {
    pickingDie = null;
    const r = await api("/api/act", { kind: "roll_random", seat });
    if (r.ok) { localRefusal = null; renderRefusal(snap.seats[seat]); } else say($("refusal"), r.data.error);
  });
  $("change-seat").addEventListener("click", (event) => { event.preventDefault(); forgetSeat(snap.game_id); seat = null; render(); });
  $("undo").addEventListener("click", () => hostCall("/api/undo"));
  $("reveal-send").addEventListener("click", async () => {
    const r = await hostCall("/api/act", { kind: "reveal", cards: revealPicked });
    if (r.ok) revealPicked = [];
  });
  $("host-pin").value = pin();

  const stream = live((snapshot) => { snap = snapshot; render(); });
  pollCamera();
  setInterval(pollCamera, 1500);
  window.companionTable = { stream, snapshot: () => snap };
})();
