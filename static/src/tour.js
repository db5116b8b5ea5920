// A short guided tour for first-time visitors of the landing page: four steps, each pointing at a part of
// the page. Dismissed or finished once, it stays away (localStorage); "Take the tour" brings it back.
// It is a non-modal dialog: the page stays usable, Esc closes it, focus moves into it and back.

import { h, replaceChildren } from "./dom.js";

const KEY = "admission-playground:tour-done";
const STEPS = [
  { target: "#documents", title: "1. The policy", text: "A ValidatingAdmissionPolicy and its binding, in YAML. Change the limit — say 5 to 10." },
  { target: "#results", title: "2. The decision", text: "Each sample request gets the API server's answer as you type: allowed or denied, the message kubectl prints, and why." },
  { target: "a[href='/examples']", title: "3. Examples", text: "80-odd runnable examples grouped by what they teach: params, matchConditions, MAP, Kyverno, Pod Security…" },
  { target: "#btn-new-project", title: "4. Your own project", text: "Start one here. It saves as you type; Ctrl+S makes a read-only permalink to share." },
];

function remembered() {
  try {
    return localStorage.getItem(KEY) === "1";
  } catch {
    return false;
  }
}

function remember() {
  try {
    localStorage.setItem(KEY, "1");
  } catch {
    /* the tour may show again next time */
  }
}

export function startTour({ force }) {
  if (!force && remembered()) return;
  document.querySelector(".tour")?.remove();
  const opener = document.activeElement;
  let index = 0;
  let highlighted = null;
  const body = h("div");
  const box = h("div", { class: "tour", role: "dialog", "aria-modal": "false", "aria-labelledby": "tour-title", tabindex: "-1" }, body);
  const close = () => {
    remember();
    highlighted?.classList.remove("tour-target");
    box.remove();
    document.removeEventListener("keydown", onKey);
    if (opener && opener !== document.body) opener.focus?.();
  };
  function onKey(event) {
    if (event.key === "Escape") close();
  }
  const show = () => {
    const step = STEPS[index];
    highlighted?.classList.remove("tour-target");
    highlighted = document.querySelector(step.target);
    highlighted?.classList.add("tour-target");
    // Only a visitor's own click (Next, or "Take the tour") may scroll: shown on its own, the tour never does.
    if (force || index > 0) highlighted?.scrollIntoView?.({ block: "nearest" });
    const last = index === STEPS.length - 1;
    const next = h("button", { type: "button", class: "btn btn-primary" }, last ? "Done" : "Next");
    next.addEventListener("click", () => {
      if (last) close();
      else {
        index += 1;
        show();
      }
    });
    const skip = h("button", { type: "button", class: "btn btn-quiet" }, "Skip the tour");
    skip.addEventListener("click", close);
    replaceChildren(body, h("h2", { id: "tour-title" }, step.title), h("p", {}, step.text),
      h("p", { class: "actions" }, h("span", { class: "tour-step" }, `${index + 1} of ${STEPS.length}`), last ? null : skip, next));
    if (force || index > 0) next.focus({ preventScroll: true });
  };
  document.body.appendChild(box);
  document.addEventListener("keydown", onKey);
  show();
}
