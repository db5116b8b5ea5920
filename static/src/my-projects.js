// "My projects": the projects this browser holds an edit token for (tokens.js), with their current title and
// last edit from the API; open or forget each. Forgetting removes the token here, not the project.

import { h, replaceChildren } from "./dom.js";
import { api } from "./api.js";
import { pageData } from "./page-data.js";
import { forget, myProjects, remember } from "./tokens.js";

const data = pageData();
const host = document.getElementById("my-projects");

function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString();
}

function card(project, state) {
  const title = state?.title || project.title || "Untitled";
  const edited = state?.updated || project.lastEdited;
  const forgetButton = h("button", { type: "button", class: "btn btn-small btn-quiet" }, "Forget");
  const item = h("article", { class: "example-card", dataset: { project: project.id } },
    h("h3", {}, h("a", { href: `/p/${encodeURIComponent(project.id)}` }, title)),
    h("p", { class: "muted" }, edited ? `Last edit ${when(edited)}` : "", state === null ? " · no longer on the server" : ""),
    h("p", { class: "card-actions" }, h("a", { class: "btn btn-small", href: `/p/${encodeURIComponent(project.id)}` }, "Open"),
      forgetButton));
  if (edited) item.querySelector("p.muted").title = String(edited);
  forgetButton.addEventListener("click", () => {
    if (!window.confirm(`Forget "${title}" in this browser? The project stays online; without its edit link you `
      + "can only view it.")) return;
    forget(project.id);
    item.remove();
    if (!host.querySelector("article")) render();
  });
  return item;
}

async function render() {
  const projects = myProjects();
  if (!projects.length) {
    replaceChildren(host, h("p", { class: "muted" }, "No projects yet. Start from ", h("a", { href: "/examples" }, "an example"),
      " (Fork & edit) or the CEL page."));
    return;
  }
  const states = await Promise.all(projects.map((p) => api("GET", `${data.apiBase || "/api/v1/"}projects/${encodeURIComponent(p.id)}`)
    .then((state) => {
      remember(p.id, { title: state.title, lastEdited: state.updated });
      return state;
    })
    .catch((error) => (error?.status === 404 ? null : undefined))));
  replaceChildren(host, projects.map((project, index) => card(project, states[index])));
}

render();
