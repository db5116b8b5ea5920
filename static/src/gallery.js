// The example gallery: cards grouped by what they teach, a search over title, description, tags and YAML
// (whole words from their start: "MAP" finds the MAP examples, not every ConfigMap), clickable tags, and
// three orders. The server renders the same groups, so the page reads without this script.

import { h, replaceChildren } from "./dom.js";
import { api, describeError } from "./api.js";
import { pageData } from "./page-data.js";
import { openProject } from "./tokens.js";
import { wordMatcher } from "./search.js";

const data = pageData();
const DIFFICULTY = { beginner: 0, intermediate: 1, advanced: 2 };
const byTitle = (a, b) => a.title.localeCompare(b.title, undefined, { sensitivity: "base" });
const byLevel = (a, b) => (DIFFICULTY[a.difficulty] - DIFFICULTY[b.difficulty]) || byTitle(a, b);
const state = { query: "", tag: "", sort: "topic" };

function forkButton(example) {
  const fork = h("button", { type: "button", class: "btn btn-small", "aria-label": `Fork to edit: ${example.title}` }, "Fork to edit");
  fork.addEventListener("click", async () => {
    fork.disabled = true;
    try {
      openProject(await api("POST", `${data.apiBase}examples/${encodeURIComponent(example.slug)}/fork`, {}));
    } catch (error) {
      fork.disabled = false;
      fork.textContent = describeError(error.error);
    }
  });
  return fork;
}

function card(example, onTag) {
  const href = `/examples/${encodeURIComponent(example.slug)}`;
  const meta = [example.difficulty, `Kubernetes ${example.kubernetes}+`, example.kyverno ? `Kyverno ${example.kyverno}+` : null]
    .filter(Boolean).join(" · ");
  return h("article", { class: "example-card", dataset: { slug: example.slug } },
    h("h3", {}, h("a", { href, class: "example-link" }, example.title || example.slug)),
    h("p", {}, example.description || ""),
    h("p", { class: "card-meta" }, meta),
    h("p", { class: "tags" }, (example.tags || []).map((tag) => {
      const button = h("button", { type: "button", class: "tag", "aria-pressed": String(state.tag === tag),
        title: `Show the examples tagged ${tag}` }, tag);
      button.addEventListener("click", () => onTag(tag));
      return button;
    })),
    h("p", { class: "card-actions" }, h("a", { href, class: "btn btn-small btn-quiet" }, "Open"), forkButton(example)));
}

function matches(example, matcher) {
  if (state.tag && !(example.tags || []).includes(state.tag)) return false;
  return matcher([example.title, example.description, (example.tags || []).join(" "), example.group, example.words].join("\n"));
}

function render(list, examples, groups, onTag) {
  const matcher = wordMatcher(state.query);
  const shown = examples.filter((e) => matches(e, matcher));
  let sections;
  if (state.sort === "topic") {
    sections = groups.map((group) => ({ ...group, items: shown.filter((e) => e.groupSlug === group.slug).sort(byLevel) }))
      .filter((group) => group.items.length);
  } else {
    const sorted = [...shown].sort(state.sort === "title" ? byTitle : byLevel);
    sections = sorted.length ? [{ slug: "all", title: state.sort === "title" ? "A–Z" : "From beginner to advanced", items: sorted }] : [];
  }
  replaceChildren(list, sections.map((group) => h("section", { class: "gallery-group", id: group.slug, dataset: { group: group.slug } },
    h("h2", {}, group.title),
    group.blurb ? h("p", { class: "muted group-blurb" }, group.blurb) : null,
    h("div", { class: "gallery" }, group.items.map((e) => card(e, onTag))))));
  document.getElementById("gallery-empty").hidden = shown.length > 0;
  const active = document.getElementById("gallery-active");
  const clear = h("button", { type: "button", class: "btn btn-small" }, "Clear filters");
  clear.addEventListener("click", () => {
    state.query = "";
    state.tag = "";
    document.getElementById("gallery-filter").value = "";
    render(list, examples, groups, onTag);
  });
  const filtered = state.query || state.tag;
  replaceChildren(active, filtered ? [`${shown.length} of ${examples.length} examples`,
    state.tag ? ` tagged “${state.tag}”` : "", " ", clear] : []);
  document.querySelector(".group-index")?.toggleAttribute("hidden", Boolean(filtered) || state.sort !== "topic");
}

async function main() {
  const list = document.getElementById("gallery-list");
  const filter = document.getElementById("gallery-filter");
  const sort = document.getElementById("gallery-sort");
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
  const groups = data.groups || [...new Map(examples.map((e) => [e.groupSlug, { slug: e.groupSlug, title: e.group }])).values()];
  const params = new URLSearchParams(window.location.search);
  state.query = params.get("q") || "";
  state.tag = params.get("tag") || "";
  if (filter) filter.value = state.query;
  const update = () => {
    const url = new URL(window.location.href);
    for (const [key, value] of [["q", state.query], ["tag", state.tag]]) {
      if (value) url.searchParams.set(key, value);
      else url.searchParams.delete(key);
    }
    window.history.replaceState(null, "", url);
    render(list, examples, groups, onTag);
  };
  function onTag(tag) {
    state.tag = state.tag === tag ? "" : tag;
    update();
  }
  filter?.addEventListener("input", () => {
    state.query = filter.value;
    update();
  });
  sort?.addEventListener("change", () => {
    state.sort = sort.value;
    update();
  });
  render(list, examples, groups, onTag);
}

main();
