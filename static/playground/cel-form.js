// Sends the CEL form to POST /api/v1/cel and shows the answer.
// User data is only ever written with textContent, never as HTML.

const form = document.getElementById("cel-form");
const output = document.getElementById("cel-result");

function csrfToken() {
  const field = form.querySelector("input[name=csrfmiddlewaretoken]");
  return field ? field.value : "";
}

function describeError(error) {
  const where = error.line != null ? ` (line ${error.line}, column ${error.column ?? "?"})` : "";
  return `${error.code}${where}\n${error.message}`;
}

function show(text, kind) {
  output.textContent = text;
  output.dataset.kind = kind;
}

async function evaluate(event) {
  event.preventDefault();
  const body = {
    expression: form.elements.expression.value,
    variables_text: form.elements.variables_text.value,
  };
  show("Evaluating…", "pending");
  try {
    const response = await fetch(form.dataset.endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (answer.error) {
      show(describeError(answer.error), "error");
    } else {
      show(JSON.stringify(answer.result, null, 2), "result");
    }
  } catch (failure) {
    show(`Request failed: ${failure.message}`, "error");
  }
}

form.addEventListener("submit", evaluate);
