/* The calibration page: the camera's picture, the Calibrate button, what was found and what to fix. */
"use strict";

(() => {
  const { el, api, pin, setPin, say } = Companion;
  const $ = (id) => document.getElementById(id);

  async function poll() {
    const r = await api("/api/camera");
    if (!r.ok) return;
    say($("camera-message"), r.data.message);
    $("calibrate").disabled = !r.data.camera;
    $("live").hidden = !r.data.camera;
    if (r.data.camera) $("live").src = `/api/camera/frame.jpg?t=${Date.now()}`;
  }

  $("calibrate").addEventListener("click", async () => {
    const typed = $("calibrate-pin").value.trim();
    if (typed) setPin(typed);
    $("calibrate").disabled = true;
    say($("calibrate-error"), "");
    const r = await api("/api/camera/calibrate", {});
    $("calibrate").disabled = false;
    if (!r.ok) { say($("calibrate-error"), r.data.error); return; }
    const result = r.data;
    $("result").hidden = false;
    $("result-title").textContent = result.ok
      ? `Calibrated: the ${result.seats}-seat ${result.paper} mat was found and every check passed.`
      : result.found_mat ? "The mat was found, but fix these for the best readings, then calibrate again:" : "Not calibrated:";
    const items = [];
    for (const problem of result.problems) items.push(el("li", { class: "fix", text: `To fix: ${problem}` }));
    for (const check of result.checks) items.push(el("li", { class: check.ok ? "ok" : "fix", text: `${check.name}: ${check.ok ? "ok" : "fix"} — ${check.message}` }));
    for (const note of result.notes) items.push(el("li", { text: `Note: ${note}` }));
    if (result.learned_colours.length) items.push(el("li", { text: `Learned the dice colours: ${result.learned_colours.join(", ")}.` }));
    if (result.saved) items.push(el("li", { text: `Saved as ${result.saved}.` }));
    $("checks").replaceChildren(...items);
    $("annotated").src = `/api/camera/calibration.jpg?t=${Date.now()}`;
  });
  $("calibrate-pin").value = pin();
  poll();
  setInterval(poll, 1500);
})();
