// Small controls around the editor pages: the phone pane switch, the "+ Document" template menu, unique
// names, fork titles and human timestamps. Layout only: nothing here talks to the server.

import { h, replaceChildren } from "./dom.js";
import { DOCUMENT_TEMPLATES } from "./doc-templates.js";

/** "<title> (fork)", never "(fork) (fork)": the same rule as the server's fork of a snapshot or an example. */
export function forkTitle(title) {
  const base = String(title || "Untitled").replace(/( \(fork\))+$/, "").trim() || "Untitled";
  return `${base} (fork)`;
}

/** `name`, or `name-2.yaml`, `name-3.yaml`… whichever is not taken yet. */
export function uniqueName(name, taken) {
  const used = new Set(taken);
  if (!used.has(name)) return name;
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  for (let n = 2; ; n += 1) if (!used.has(`${stem}-${n}${ext}`)) return `${stem}-${n}${ext}`;
}

/** Phones show one pane at a time: the Editors / Results buttons choose it (CSS hides the other). */
export function installPaneSwitch() {
  const bench = document.querySelector(".workbench");
  const buttons = [...document.querySelectorAll(".pane-switch button")];
  if (!bench || !buttons.length) return;
  const show = (pane) => {
    bench.dataset.pane = pane;
    for (const button of buttons) button.setAttribute("aria-pressed", String(button.dataset.pane === pane));
  };
  for (const button of buttons) button.addEventListener("click", () => show(button.dataset.pane));
}

/** The "+ Document" menu: one entry per template; `create(template)` gets a unique file name. */
export function installTemplateMenu(button, menu, _initial, create, takenNames) {
  if (!button || !menu) return;
  const close = (focusButton) => {
    menu.hidden = true;
    button.setAttribute("aria-expanded", "false");
    if (focusButton) button.focus();
  };
  const items = DOCUMENT_TEMPLATES.map((template) => {
    const item = h("button", { type: "button", role: "menuitem" }, template.label, h("small", {}, template.hint));
    item.addEventListener("click", () => {
      close(false);
      create({ ...template, name: uniqueName(template.name, takenNames()) });
    });
    return item;
  });
  replaceChildren(menu, items);
  button.addEventListener("click", () => {
    const open = menu.hidden;
    menu.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    if (open) items[0].focus();
  });
  menu.addEventListener("keydown", (event) => {
    const index = items.indexOf(document.activeElement);
    if (event.key === "Escape") close(true);
    else if (event.key === "ArrowDown") items[(index + 1) % items.length].focus();
    else if (event.key === "ArrowUp") items[(index - 1 + items.length) % items.length].focus();
    else return;
    event.preventDefault();
  });
  document.addEventListener("click", (event) => {
    if (!menu.hidden && !menu.contains(event.target) && event.target !== button) close(false);
  });
}

const UNITS = [["year", 31536000], ["month", 2592000], ["week", 604800], ["day", 86400], ["hour", 3600], ["minute", 60]];

/** "5 minutes ago" for a Date, in the browser's language. */
export function relativeTime(date, now = new Date()) {
  const seconds = Math.round((date.getTime() - now.getTime()) / 1000);
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  for (const [unit, size] of UNITS) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return format.format(0, "second") === "now" ? "just now" : format.format(seconds, "second");
}

/** <time class="human-time" datetime=…>: relative text, the exact local time on hover (title). */
export function humanTimes(root = document) {
  for (const node of root.querySelectorAll("time.human-time[datetime]")) {
    const date = new Date(node.getAttribute("datetime"));
    if (Number.isNaN(date.getTime())) continue;
    node.textContent = relativeTime(date);
    node.title = date.toLocaleString(undefined, { dateStyle: "full", timeStyle: "long" });
  }
}
