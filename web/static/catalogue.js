/* The catalogue page: read the cards; add, correct or remove one with the table PIN. */
"use strict";

(() => {
  const { el, api, pin, setPin, say } = Companion;
  const form = document.getElementById("card-form");
  const error = document.getElementById("card-error");
  let editing = null;

  async function load() {
    const r = await api("/api/catalogue");
    if (!r.ok) { say(error, r.data.error); return; }
    const note = document.getElementById("catalogue-note");
    note.textContent = `${r.data.title || "Catalogue"}: ${r.data.card.length} kinds of card, ${r.data.total} cards in all. `
      + (r.data.sample ? "This is a SAMPLE deck, not the real one. " : "") + r.data.note;
    document.getElementById("cards").replaceChildren(...r.data.card.map((card) => el("li", {},
      el("b", { text: card.name }), ` (${card.latin}, ${card.area}) ×${card.copies} · Protection ${card.protection} · Bonus ${card.bonus} · `,
      el("code", { text: card.requirement }), " ",
      el("button", { type: "button", class: "small", text: "Edit", onclick: () => edit(card) }),
      el("button", { type: "button", class: "small", text: "Remove", onclick: () => remove(card) }))));
  }

  function edit(card) {
    editing = card.id;
    document.getElementById("form-title").textContent = `Correct ${card.name}`;
    for (const [key, value] of Object.entries(card)) if (form.elements[key]) form.elements[key].value = value;
    form.scrollIntoView();
  }

  async function remove(card) {
    if (!confirm(`Remove ${card.name} from the catalogue?`)) return;
    const typed = form.elements.pin.value.trim();
    if (typed) setPin(typed);
    const r = await api(`/api/catalogue/cards/${encodeURIComponent(card.id)}`, { pin: pin() }, "DELETE");
    say(error, r.ok ? "" : r.data.error);
    load();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const card = {};
    for (const key of ["id", "name", "latin", "area", "requirement"]) card[key] = form.elements[key].value.trim();
    for (const key of ["copies", "protection", "bonus"]) card[key] = parseInt(form.elements[key].value, 10);
    const typed = form.elements.pin.value.trim();
    if (typed) setPin(typed);
    const r = editing
      ? await api(`/api/catalogue/cards/${encodeURIComponent(editing)}`, { pin: pin(), card }, "PUT")
      : await api("/api/catalogue/cards", { pin: pin(), card });
    if (!r.ok) { say(error, r.data.error); return; }
    say(error, "");
    editing = null;
    form.reset();
    document.getElementById("form-title").textContent = "Add a card";
    load();
  });
  document.getElementById("card-reset").addEventListener("click", () => { editing = null; form.reset(); });
  form.elements.pin.value = pin();
  load();
})();
