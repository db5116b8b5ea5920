// The Import/Export menu of the project toolbar (issue 19): an upload becomes a new project
// (POST /api/v1/import/<format>, raw body); export links download GET /api/v1/projects/<id>/export/<format>.
import { ApiError } from "./api.js";
import { openProject } from "./tokens.js";

const API = "/api/v1/";

async function importFile(format, file) {
  const response = await fetch(`${API}import/${encodeURIComponent(format)}`, {
    method: "POST", body: file, credentials: "same-origin",
    headers: { Accept: "application/json", "Content-Type": file.type || "application/octet-stream" },
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body?.error);
  return body;
}

/** Wire the menu; `projectId` (when the page shows a stored project) enables the export links. */
export function installFormatsMenu({ projectId, onError }) {
  const input = document.getElementById("import-file");
  const format = document.getElementById("import-format");
  if (input && format) {
    input.addEventListener("change", () => {
      const file = input.files && input.files[0];
      if (!file) return;
      importFile(format.value, file).then(openProject).catch((error) => onError(error))
        .finally(() => { input.value = ""; });
    });
  }
  keepPanelInView(document.getElementById("formats-menu"));
  const links = document.getElementById("export-links");
  if (links && projectId) {
    for (const link of links.querySelectorAll("a[data-export]")) {
      link.href = `${API}projects/${encodeURIComponent(projectId)}/export/${encodeURIComponent(link.dataset.export)}`;
    }
    links.hidden = false;
  }
}

/** The panel opens towards the page from wherever the toolbar's wrapping put the button: it starts at the
 *  button's left edge, and ends at its right edge instead when that would run past the viewport. */
function keepPanelInView(menu) {
  const panel = menu?.querySelector(".menu-panel");
  if (!panel) return;
  menu.addEventListener("toggle", () => {
    menu.classList.remove("opens-left");
    if (!menu.open || getComputedStyle(panel).position === "fixed") return;
    if (panel.getBoundingClientRect().right > document.documentElement.clientWidth) menu.classList.add("opens-left");
  });
}
