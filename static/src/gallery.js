// The example gallery: cards from page data (or GET /api/v1/examples), filtered by text and tag.

import { h, replaceChildren } from "./dom.js";
import { api, describeError } from "./api.js";
import { installThemeToggle } from "./theme.js";
import { pageData } from "./page-data.js";
import { openProject } from "./tokens.js";

const data = pageData();

function card(example) {
  const href = `/examples/${encodeURIComponent(example.slug)}`;
  const fork = h("button", { type: "button", class: "btn btn-small" }, "Fork & edit");
  fork.addEventListener("click", async () => {
    fork.disabled = true;
    try {
      openProject(await api("POST", `${data.apiBase}examples/${encodeURIComponent(example.slug)}/fork`, {}));
    } catch (error) {
      fork.disabled = false;
      fork.textContent = describeError(error.error);
    }
  });
  return h("article", { class: "example-card", dataset: { slug: example.slug, search: [example.title, example.description,
    ...(example.tags || [])].join(" ").toLowerCase() } },
    h("h3", {}, h("a", { href, class: "example-link" }, example.title || example.slug)),
    h("p", {}, example.description || ""),
    h("p", { class: "tags" }, (example.tags || []).map((tag) => h("span", { class: "tag" }, tag))),
    h("p", { class: "card-actions" }, h("a", { href, class: "btn btn-small btn-quiet" }, "Open"), fork));
}

async function main() {
  installThemeToggle();
  const list = document.getElementById("gallery-list");
  const filter = document.getElementById("gallery-filter");
  if (!list) return;
  let examples = data.examples;
  if (!Array.isArray(examples)) {
    try {
      examples = await api("GET", `${data.apiBase}examples`);
    } catch (error) {
      replaceChildren(list, h("p", { class: "error-text" }, describeError(error.error)));
      return;
    }
  }
  replaceChildren(list, examples.length ? examples.map(card) : h("p", { class: "muted" }, "No examples yet."));
  filter?.addEventListener("input", () => {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    for (const node of list.children) {
      const text = node.dataset.search || "";
      node.hidden = !words.every((w) => text.includes(w));
    }
  });
}

main();
