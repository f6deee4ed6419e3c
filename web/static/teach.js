/* The "teach this card" page: look at the display area, confirm or enter an unknown card's data, save. */
"use strict";

(() => {
  const { el, api, pin, setPin, say } = Companion;
  const $ = (id) => document.getElementById(id);
  const FIELDS = [["id", "Card id (letters, digits, -)", "text"], ["name", "Name", "text"], ["latin", "Latin name", "text"],
    ["area", "Area", "text"], ["copies", "Copies in the deck", "number"], ["protection", "Protection Points", "number"],
    ["bonus", "Bonus Points per pair", "number"], ["requirement", "Dice requirement (e.g. B2 W3 W6 W*)", "text"]];

  /** A form for one unknown card: its picture and its catalogue fields, the requirement prefilled. */
  function unknownCard(card) {
    const inputs = {};
    const form = el("form", { class: "teach-card" },
      el("img", { src: `/api/camera/cards/${card.index}.jpg?t=${Date.now()}`, alt: "The unknown card", width: "240" }),
      el("p", { class: "hint", text: card.note }),
      FIELDS.map(([name, label, type]) => el("label", {}, label, inputs[name] = el("input", { name, type,
        value: name === "requirement" ? card.requirement : name === "copies" ? "1" : "", min: type === "number" ? "0" : null }))),
      el("button", { type: "submit", class: "primary", text: "Save this card" }),
      el("p", { class: "error", role: "alert", hidden: true }));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = {};
      for (const [name, , type] of FIELDS) data[name] = type === "number" ? parseInt(inputs[name].value || "0", 10) : inputs[name].value.trim();
      const r = await api("/api/camera/teach", { index: card.index, card: data });
      const error = form.querySelector(".error");
      say(error, r.ok ? "" : r.data.error);
      if (r.ok) form.replaceWith(el("p", { class: "message", text: `Learned ${data.name || data.id}${r.data.added ? " and added it to the catalogue" : ""}.` }));
    });
    return form;
  }

  $("look").addEventListener("click", async () => {
    const typed = $("teach-pin").value.trim();
    if (typed) setPin(typed);
    $("look").disabled = true;
    say($("teach-error"), "");
    const r = await api("/api/camera/cards", {});
    $("look").disabled = false;
    if (!r.ok) { say($("teach-error"), r.data.error); return; }
    const known = r.data.cards.filter((c) => c.known);
    const unknown = r.data.cards.filter((c) => !c.known);
    $("found").replaceChildren(
      el("p", { text: r.data.cards.length ? `${r.data.cards.length} card(s) in the display area.` : "No card found in the display area." }),
      known.length ? el("p", { text: `Known: ${known.map((c) => c.name).join(", ")}.` }) : null,
      unknown.map(unknownCard));
  });
  api("/api/camera").then((r) => { if (r.ok) say($("camera-message"), r.data.message); });
  $("teach-pin").value = pin();
})();
