/* The join page: pick the seat this phone plays; its big button is then that seat's. */
"use strict";

(() => {
  const { el, live } = Companion;
  live((snap) => {
    const idle = snap.phase === "idle";
    document.getElementById("no-game").hidden = !idle;
    document.getElementById("seats-section").hidden = idle;
    document.getElementById("sample-note").hidden = !snap.sample;
    const box = document.getElementById("seat-buttons");
    box.replaceChildren(...(snap.seats || []).map((s) => el("a", {
      class: "seat-button", href: `/table?seat=${s.seat}`, "data-seat": s.seat,
      text: `${s.name}${s.seat === snap.leader ? " (Leader)" : ""}`,
      onclick: () => localStorage.setItem(`seat:${snap.game_id}`, String(s.seat)),
    })));
  });
})();
