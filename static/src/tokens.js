// Edit tokens are given once, at creation; the browser keeps them per project in localStorage.

const PREFIX = "admission-playground:token:";

export function getToken(projectId) {
  try {
    return localStorage.getItem(PREFIX + projectId) || "";
  } catch {
    return "";
  }
}

export function saveToken(projectId, token) {
  if (!projectId || !token) return;
  try {
    localStorage.setItem(PREFIX + projectId, token);
  } catch {
    /* private mode: the token lives only in this page */
  }
}

/** Keep the token of a freshly created/forked project and go to its editor. */
export function openProject(created) {
  const id = created.id ?? created.project?.id;
  saveToken(id, created.editToken);
  window.location.assign(`/p/${encodeURIComponent(id)}`);
}
