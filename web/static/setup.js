/* The setup page: players in seat order, the first Leader, demo deck or real cards, the PIN. */
"use strict";

(() => {
  const { el, api, pin, setPin, say } = Companion;
  const list = document.getElementById("players");
  const leader = document.getElementById("leader");
  const error = document.getElementById("setup-error");
  const MIN = 2;
  const MAX = 5;

  function names() {
    return [...list.querySelectorAll("input")].map((input) => input.value.trim());
  }

  function refreshLeader() {
    const chosen = leader.value;
    leader.replaceChildren(el("option", { value: "", text: "Draw at random" }),
      ...names().map((name, i) => el("option", { value: String(i), text: name || `Player ${i + 1}` })));
    if ([...leader.options].some((o) => o.value === chosen)) leader.value = chosen;
    document.getElementById("add-player").hidden = list.children.length >= MAX;
    for (const button of list.querySelectorAll(".remove")) button.hidden = list.children.length <= MIN;
  }

  function addPlayer(value) {
    const n = list.children.length + 1;
    const input = el("input", { name: `player${n}`, maxlength: "24", autocomplete: "off", placeholder: `Player ${n}'s name`, value: value || "" });
    input.addEventListener("input", refreshLeader);
    const item = el("li", {}, input, el("button", { type: "button", class: "small remove", "aria-label": "remove this player", text: "✕",
      onclick: () => { item.remove(); refreshLeader(); } }));
    list.append(item);
    refreshLeader();
  }

  for (let i = 0; i < 3; i++) addPlayer("");
  document.getElementById("add-player").addEventListener("click", () => addPlayer(""));
  document.getElementById("pin").value = pin();

  document.getElementById("setup-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const players = names();
    if (players.some((name) => !name)) { say(error, "Every player needs a name (or remove the empty line)."); return; }
    const typed = document.getElementById("pin").value.trim();
    if (!typed) { say(error, "Enter the table PIN: it is shown on the host screen and where the companion was started."); return; }
    setPin(typed);
    const body = { players, demo: document.querySelector("input[name=deck]:checked").value === "demo", pin: typed };
    if (leader.value !== "") body.leader = parseInt(leader.value, 10);
    const r = await api("/api/start", body);
    if (!r.ok) { say(error, r.data.error); return; }
    location.href = "/join";
  });
})();
