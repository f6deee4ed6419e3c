/* The scoreboard: points per seat, the winner, and the tie-break that decided, in words. */
"use strict";

(() => {
  const { el, live } = Companion;
  live((snap) => {
    const status = document.getElementById("score-status");
    const body = document.querySelector("#scores tbody");
    if (snap.phase === "idle" || !snap.scores) {
      status.textContent = "No game yet.";
      body.replaceChildren();
      return;
    }
    const board = snap.scores;
    const winner = board.winner === null ? null : snap.seats[board.winner].name;
    status.textContent = board.final
      ? `Game over: ${winner} wins!`
      : `Scores so far (round ${snap.round} of ${snap.rounds_total}).${winner ? ` ${winner} leads.` : ""}`;
    body.replaceChildren(...board.ranking.map((seatNo) => {
      const s = board.seats[seatNo];
      return el("tr", { class: seatNo === board.winner ? "winner" : "" },
        el("td", { text: s.name }), el("td", { text: s.protection }), el("td", { text: s.pair_bonus }),
        el("td", { text: s.gray_bonus }), el("td", {}, el("b", { text: s.total })), el("td", { text: s.animals }));
    }));
    document.getElementById("tie-break").textContent = winner ? `Decided by: ${board.decided_by}.` : "";
  });
})();
