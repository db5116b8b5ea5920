// The plain CEL mode on the home page: turns the form's textareas into CodeMirror editors (CEL and YAML)
// and evaluates as you type. The form (static/playground/cel-form.js) still sends and renders the result,
// so the page also works before this bundle loads.

import { createEditor } from "./editors.js";
import { debounce } from "./dom.js";
import { api, describeError } from "./api.js";
import { installThemeToggle } from "./theme.js";
import { openProject } from "./tokens.js";
import { CEL_EXAMPLES } from "./cel-examples.js";
import { h } from "./dom.js";

const STARTER = {
  title: "My admission policy",
  documents: [{ name: "policy.yaml", text: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
    messageExpression: "'replicas must be at most 5, got ' + string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [Deny]
` }],
  requests: [{ name: "too-many-replicas.yaml", expected: { outcome: "denied" }, text: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 7
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
` }],
};

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
  installThemeToggle();
  const form = document.getElementById("cel-form");
  const newProject = document.getElementById("btn-new-project");
  newProject?.addEventListener("click", async () => {
    newProject.disabled = true;
    try {
      openProject(await api("POST", "/api/v1/projects", STARTER));
    } catch (error) {
      newProject.disabled = false;
      newProject.textContent = describeError(error.error);
    }
  });
  if (!form) return;
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
  form.dataset.live = "true";
  run();
}

main();
