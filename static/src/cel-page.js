// The plain CEL mode (/cel): turns the form's textareas into CodeMirror editors (CEL and YAML)
// and evaluates as you type. The form (static/playground/cel-form.js) still sends and renders the result,
// so the page also works before this bundle loads.

import { createEditor } from "./editors.js";
import { debounce } from "./dom.js";
import { shareHash, readShareLink } from "./cel-share.js";
import { CEL_EXAMPLES } from "./cel-examples.js";
import { h, copyText } from "./dom.js";

function upgrade(textarea, options) {
  const host = document.createElement("div");
  host.className = "editor-host";
  textarea.after(host);
  textarea.hidden = true;
  return createEditor(host, { ...options, text: textarea.value, onChange(text) {
    textarea.value = text;
    options.onChange?.(text);
  } });
}

function main() {
  const form = document.getElementById("cel-form");
  if (!form) return;
  const shared = readShareLink(window.location.hash);
  if (shared) {
    form.elements.expression.value = shared.expression;
    form.elements.variables_text.value = shared.input;
  }
  const submit = debounce(() => form.requestSubmit(), 200);
  const run = () => form.requestSubmit();
  const expression = upgrade(form.elements.expression, { language: "cel", label: "CEL expression", onChange: submit, onRun: run });
  const input = upgrade(form.elements.variables_text, { language: "yaml", role: "input", label: "Input YAML", onChange: submit, onRun: run });
  form.addEventListener("cel:error", (event) => {
    const error = event.detail || {};
    const located = error.line ? [{ line: error.line, column: error.column, message: error.message }] : [];
    const inInput = error.code === "invalid_variables";
    expression.setServerErrors(inInput ? [] : located);
    input.setServerErrors(inInput ? located : []);
  });
  form.addEventListener("cel:result", () => {
    expression.setServerErrors([]);
    input.setServerErrors([]);
  });
  const picker = document.getElementById("cel-examples");
  if (picker) {
    CEL_EXAMPLES.forEach((example, index) => picker.appendChild(h("option", { value: String(index) }, example.title)));
    picker.addEventListener("change", () => {
      const example = CEL_EXAMPLES[Number(picker.value)];
      if (!example) return;
      expression.setText(example.expression);
      input.setText(example.input);
      form.elements.expression.value = example.expression;
      form.elements.variables_text.value = example.input;
      run();
    });
  }
  document.getElementById("btn-cel-share")?.addEventListener("click", async () => {
    const url = new URL(window.location.href);
    url.hash = shareHash(form.elements.expression.value, form.elements.variables_text.value);
    window.history.replaceState(null, "", url);
    const box = document.getElementById("cel-share-box");
    const field = document.getElementById("cel-share-url");
    box.hidden = false;
    field.value = url.href;
    field.select();
    await copyText(url.href);
  });
  form.dataset.live = "true";
  run();
}

main();
