/* The host page: mute or unmute the "Ready, Set, Go!" buzzer (with the table PIN). */
"use strict";

(() => {
  const { api, pin, setPin, say } = Companion;
  const $ = (id) => document.getElementById(id);
  let muted = false;

  /** Show whether the buzzer is muted, and offer the other choice. */
  function show(data) {
    if (!data.board) {
      say($("sound-state"), "No buttons or buzzer are attached to this table.");
      $("sound-toggle").hidden = true;
      return;
    }
    muted = data.muted;
    say($("sound-state"), muted ? "The buzzer is muted." : "The buzzer plays Ready, Set, Go!");
    $("sound-toggle").hidden = false;
    $("sound-toggle").textContent = muted ? "Unmute the buzzer" : "Mute the buzzer";
  }

  $("sound-pin").value = pin() || (document.getElementById("host-pin") || {}).textContent || "";
  $("sound-toggle").addEventListener("click", async () => {
    const typed = $("sound-pin").value.trim();
    if (typed) setPin(typed);
    const r = await api("/api/sound", { muted: !muted });
    say($("sound-error"), r.ok ? "" : r.data.error);
    if (r.ok) show(r.data);
  });
  api("/api/sound").then((r) => { if (r.ok) show(r.data); });
})();
