/* Shared helpers of the phone pages: the JSON API, the table PIN, the live stream, dice pictures. */
"use strict";

const Companion = (() => {
  const PIN_KEY = "rescue-table-pin";

  /** Make an element with attributes and children (text is always set as text, never as HTML). */
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** The table PIN this phone remembers ("" if none). */
  function pin() { return localStorage.getItem(PIN_KEY) || ""; }

  /** Remember the table PIN on this phone. */
  function setPin(value) { if (value) localStorage.setItem(PIN_KEY, value); }

  /** Call the JSON API; resolves to {ok, status, data} and never throws on an HTTP error. */
  async function api(path, body, method) {
    const options = { method: method || (body === undefined ? "GET" : "POST"), headers: {} };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    if (pin()) options.headers["X-Table-Pin"] = pin();
    try {
      const response = await fetch(path, options);
      let data = {};
      try { data = await response.json(); } catch (error) { data = {}; }
      return { ok: response.ok, status: response.status, data };
    } catch (error) {
      return { ok: false, status: 0, data: { error: "The table cannot be reached; check the phone is on the table's Wi-Fi." } };
    }
  }

  /** Follow the table live: call onSnapshot(snapshot) with every new state (Server-Sent Events). */
  function live(onSnapshot) {
    let version = -1;
    let source = null;
    const banner = document.getElementById("connection");
    function take(snapshot) {
      // A restarted server counts versions from 1 again; a lower version with a new server_time is news.
      if (snapshot.version <= version && snapshot.server_time < (live.lastTime || 0)) return;
      version = snapshot.version;
      live.lastTime = snapshot.server_time;
      live.received = performance.now();
      live.offset = snapshot.server_time * 1000 - Date.now();
      onSnapshot(snapshot);
    }
    function connect() {
      source = new EventSource("/api/events");
      source.onmessage = (event) => { if (banner) banner.hidden = true; take(JSON.parse(event.data)); };
      source.onerror = () => { if (banner) banner.hidden = false; };
    }
    connect();
    return { refresh: async () => { const r = await api("/api/state"); if (r.ok) take(r.data); } };
  }

  const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

  /** A die picture: colour and value (null: any value; the label is shown instead). */
  function die(colour, value, label) {
    const node = el("span", { class: `die ${colour}`, role: "img",
      "aria-label": `${colour} ${value === null || value === undefined ? (label || "any") : value}` });
    if (value === null || value === undefined) {
      node.classList.add("any");
      node.append(el("span", { class: "any-label", text: label && !/^[WB]\*$/.test(label) ? label : "any" }));
      return node;
    }
    for (let cell = 0; cell < 9; cell++) {
      node.append(el("span", { class: PIPS[value].includes(cell) ? "pip on" : "pip" }));
    }
    return node;
  }

  /** The seat number this phone plays, for this game (from ?seat=N or remembered), or null. */
  function mySeat(gameId) {
    const params = new URLSearchParams(location.search);
    if (params.has("seat")) {
      const seat = parseInt(params.get("seat"), 10);
      if (!Number.isNaN(seat)) { localStorage.setItem(`seat:${gameId}`, String(seat)); return seat; }
    }
    const kept = localStorage.getItem(`seat:${gameId}`);
    return kept === null ? null : parseInt(kept, 10);
  }

  /** Forget which seat this phone plays (it will ask again). */
  function forgetSeat(gameId) {
    localStorage.removeItem(`seat:${gameId}`);
    const url = new URL(location.href);
    url.searchParams.delete("seat");
    history.replaceState(null, "", url);
  }

  /** Show a sentence in an element (or hide it when empty). */
  function say(node, text) {
    node.textContent = text || "";
    node.hidden = !text;
  }

  return { el, api, pin, setPin, live, die, mySeat, forgetSeat, say };
})();
