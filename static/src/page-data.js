// The page's data from {{ page_data|json_script:"page-data" }} (never an inline script), or the URL path.

export function pageData() {
  const node = document.getElementById("page-data");
  let data = {};
  if (node) {
    try {
      data = JSON.parse(node.textContent) || {};
    } catch {
      data = {};
    }
  }
  const path = window.location.pathname;
  const match = /^\/(p|s|examples)\/([^/]+)\/?$/.exec(path);
  if (match && !data.page) {
    const [, prefix, id] = match;
    if (prefix === "p") Object.assign(data, { page: "editor", projectId: decodeURIComponent(id) });
    if (prefix === "s") Object.assign(data, { page: "snapshot", snapshotId: decodeURIComponent(id) });
    if (prefix === "examples") Object.assign(data, { page: "example", slug: decodeURIComponent(id) });
  }
  data.apiBase = data.apiBase || "/api/v1/";
  return data;
}
