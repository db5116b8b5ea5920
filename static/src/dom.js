// DOM building without HTML parsing: every string becomes a text node, never markup.
// This is the one place the page creates elements; only `setSanitisedHtml` accepts HTML, and only the
// server's sanitised Markdown (the one HTML sink of static/**, named in tests/frontend/test_sources.py).

/** Create an element: h("div", {class: "x", dataset: {id: 1}, onclick: fn}, "text", child, [more]). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") element.className = value;
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "value") element.value = value;
    else if (name === "checked" || name === "disabled" || name === "readOnly") element[name] = Boolean(value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else if (child instanceof Node) element.appendChild(child);
    else element.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace all children of `element` with `children` (text or nodes). */
export function replaceChildren(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** Pretty JSON text for display (always through textContent). */
export function jsonText(value) {
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** A compact one-line rendering of a CEL/JSON value for tables. */
export function compactValue(value) {
  if (value === undefined) return "";
  if (typeof value === "string") return JSON.stringify(value);
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  } catch {
    return String(value);
  }
}

/** Copy text to the clipboard; falls back to a hidden textarea where the async API is refused. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h("textarea", { class: "offscreen", readonly: true }, text);
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/** A "Copy" button that copies what `getText()` returns and says so for a moment. */
export function copyButton(getText, label = "Copy") {
  const button = h("button", { type: "button", class: "btn btn-small copy-button", title: "Copy to clipboard" }, label);
  button.addEventListener("click", async () => {
    const ok = await copyText(getText());
    button.textContent = ok ? "Copied" : "Copy failed";
    setTimeout(() => (button.textContent = label), 1200);
  });
  return button;
}

/** A <pre> block of JSON with a heading, inside a <details>, and a copy button beside it (a button inside
 *  a <summary> would be a control nested in a control: unusable with a screen reader). */
export function jsonBlock(title, value, { open = false, testid } = {}) {
  const text = jsonText(value);
  return h("div", { class: "json-block-row" },
    h("details", { class: "json-block", open, dataset: testid ? { testid } : undefined },
      h("summary", {}, title), h("pre", { class: "code" }, text)),
    copyButton(() => text));
}

/** Handle a form in the page: these forms have no action, and a native submit would reload the page with the
 *  choices in its URL and the chosen files lost. Their submit buttons are served disabled (`data-needs-script`)
 *  so a click before this module ran does nothing (nor does Enter: a disabled default button blocks implicit
 *  submission); they are enabled once `handler` is in place. */
export function onSubmit(form, handler) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    handler(event);
  });
  for (const button of form.querySelectorAll("[data-needs-script]")) button.disabled = false;
}

/** Debounce: run `fn` once `ms` after the last call. `.flush()` runs it now, `.cancel()` drops it. */
export function debounce(fn, ms) {
  let timer = null;
  let lastArgs = [];
  const debounced = (...args) => {
    lastArgs = args;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      fn(...lastArgs);
    }, ms);
  };
  debounced.flush = () => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
      fn(...lastArgs);
    }
  };
  debounced.cancel = () => {
    clearTimeout(timer);
    timer = null;
  };
  debounced.pending = () => timer !== null;
  return debounced;
}

/** Show HTML that the server rendered from Markdown and passed through its allow-list sanitiser
 *  (playground/workshops/services/markdown.py): exercise tasks and hints. Never anything typed in a page. */
export function setSanitisedHtml(element, sanitisedHtml) {
  element.innerHTML = sanitisedHtml;
  return element;
}
