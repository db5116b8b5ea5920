// The landing page: a small gallery example, live. Its result came with the page (computed by the server),
// so a decision is on screen before any request; the result cards render from this small bundle first, and
// the editor (CodeMirror, most of the weight) loads after them. Edits re-evaluate statelessly.

import { h, debounce } from "./dom.js";
import { api, describeError } from "./api.js";
import { pageData } from "./page-data.js";
import { openProject } from "./tokens.js";
import { ResultsPane } from "./results-pane.js";
import { STARTER } from "./starter.js";
import { startTour } from "./tour.js";

const data = pageData();
const $ = (id) => document.getElementById(id);

function newProjectButton() {
  const button = $("btn-new-project");
  button?.addEventListener("click", async () => {
    button.disabled = true;
    try {
      openProject(await api("POST", `${data.apiBase}projects`, STARTER));
    } catch (error) {
      button.disabled = false;
      button.textContent = describeError(error.error);
    }
  });
}

async function liveDemo(demo) {
  const results = new ResultsPane($("results"));
  results.showAll(demo.evaluation, demo.requests.map((r) => ({ id: r.id, name: r.name })));
  const { Workspace } = await import("./workspace.js");
  const show = (evaluation) => {
    const order = workspace.requestOrder();
    results.showAll(evaluation, order);
    workspace.setDocumentErrors(evaluation.documents, evaluation.typecheck);
  };
  const evaluate = debounce(async () => {
    results.evaluating(null);
    try {
      show(await api("POST", `${data.apiBase}evaluate`, workspace.content()));
    } catch (error) {
      results.error(describeError(error.error));
    }
  }, 250);
  const workspace = new Workspace({ documents: $("documents"), requests: $("requests") }, {
    onEdit: () => evaluate(),
    onExpected: () => evaluate(),
    onRun: () => {
      evaluate();
      evaluate.flush();
    },
  }, { editable: true });
  workspace.reconcile({ documents: demo.documents, requests: demo.requests });
  // The name fields and Delete buttons belong to full projects; here only the YAML is for playing with.
  for (const entry of workspace.items.values()) {
    entry.nameInput.readOnly = true;
    entry.panel.querySelector(".panel-head .item-delete")?.remove();
  }
  show(demo.evaluation);
  window.__playground = { workspace, results };
}

newProjectButton();
if (data.demo) liveDemo(data.demo).then(() => (document.body.dataset.ready = "true"));
const tourButton = $("btn-tour");
tourButton?.addEventListener("click", () => startTour({ force: true }));
startTour({ force: false });
