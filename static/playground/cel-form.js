// The plain CEL mode: sends the form to POST /api/v1/cel and shows the value, its CEL type, the cost and
// any error with its position. static/dist/cel-page.js upgrades the textareas to editors and submits as
// you type; without it this is a plain form. User data is only ever written with textContent.

const form = document.getElementById("cel-form");
const output = document.getElementById("cel-result");
const fields = {
  value: document.getElementById("cel-value"),
  type: document.getElementById("cel-type"),
  cost: document.getElementById("cel-cost"),
  error: document.getElementById("cel-error"),
};
let latest = 0;

function csrfToken() {
  const field = form.querySelector("input[name=csrfmiddlewaretoken]");
  return field ? field.value : "";
}

function describeError(error) {
  const where = error.line != null ? ` (line ${error.line}, column ${error.column ?? "?"})` : "";
  return `${error.code}${where}\n${error.message}`;
}

function show(kind, parts) {
  output.dataset.kind = kind;
  for (const [name, node] of Object.entries(fields)) {
    if (node) node.textContent = parts[name] ?? "";
    if (node && kind === "result" && node.textContent === "" && name !== "error") node.textContent = "—";
  }
}

async function evaluate(event) {
  event.preventDefault();
  const sequence = ++latest;
  const body = {
    expression: form.elements.expression.value,
    variables_text: form.elements.variables_text.value,
  };
  output.dataset.kind = "pending";
  try {
    const response = await fetch(form.dataset.endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (sequence !== latest) return; // a newer evaluation is on its way
    if (answer.error) {
      show("error", { error: describeError(answer.error), type: "", cost: "" });
      form.dispatchEvent(new CustomEvent("cel:error", { detail: answer.error }));
    } else {
      show("result", {
        value: JSON.stringify(answer.result, null, 2),
        type: answer.type ?? "",
        cost: answer.cost != null ? String(answer.cost) : "",
        error: "",
      });
      form.dispatchEvent(new CustomEvent("cel:result", { detail: answer }));
    }
  } catch (failure) {
    if (sequence === latest) show("error", { error: `Request failed: ${failure.message}` });
  }
}

form.addEventListener("submit", evaluate);
// Served disabled: a click before this ran would reload the page and lose the expression (as dom.js onSubmit).
for (const button of form.querySelectorAll("[data-needs-script]")) button.disabled = false;
