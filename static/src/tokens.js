// Edit rights live in this browser: each project's edit token in localStorage, plus a small list of the
// projects this browser can edit ("My projects"). An edit link carries the token in the URL fragment
// (#edit=…), which browsers never send to the server, so it stays out of logs and referrers.

const PREFIX = "admission-playground:token:";
const LIST = "admission-playground:projects";
const NAME = "admission-playground:name";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // private mode: rights live only in this page
  }
}

export function getToken(projectId) {
  return storage()?.getItem(PREFIX + projectId) || "";
}

export function saveToken(projectId, token) {
  if (!projectId || !token) return;
  storage()?.setItem(PREFIX + projectId, token);
  remember(projectId, {});
}

/** The projects this browser can edit, newest first: [{id, title, lastEdited, lastOpened}]. */
export function myProjects() {
  let list = [];
  try {
    list = JSON.parse(storage()?.getItem(LIST) || "[]");
  } catch {
    list = [];
  }
  return (Array.isArray(list) ? list : []).filter((p) => p && typeof p.id === "string" && getToken(p.id))
    .sort((a, b) => String(b.lastOpened || "").localeCompare(String(a.lastOpened || "")));
}

/** Record (or refresh) a project in the list: {title?, lastEdited?}. */
export function remember(projectId, fields) {
  const store = storage();
  if (!store || !projectId) return;
  const list = myProjects().filter((p) => p.id !== projectId);
  const previous = myProjects().find((p) => p.id === projectId) || {};
  list.unshift({ ...previous, ...fields, id: projectId, lastOpened: new Date().toISOString() });
  store.setItem(LIST, JSON.stringify(list.slice(0, 200)));
}

/** Forget a project here: its token and its line in the list (the project itself stays on the server). */
export function forget(projectId) {
  const store = storage();
  if (!store) return;
  store.removeItem(PREFIX + projectId);
  store.setItem(LIST, JSON.stringify(myProjects().filter((p) => p.id !== projectId)));
}

/** The link that hands the edit right to another browser or a co-author. */
export function editLink(projectId, token) {
  return `${window.location.origin}/p/${encodeURIComponent(projectId)}#edit=${encodeURIComponent(token)}`;
}

/** Take a token from the address's fragment (#edit=…), keep it, and clear it from the address bar.
 * Returns the token taken, or "" when the fragment has none. */
export function adoptFragmentToken(projectId) {
  const match = /(?:^#|&)edit=([^&]+)/.exec(window.location.hash || "");
  if (!match) return "";
  const token = decodeURIComponent(match[1]);
  saveToken(projectId, token);
  window.history.replaceState(null, "", window.location.pathname + window.location.search);
  return token;
}

/** The name others see beside this browser's cursor. */
export function displayName() {
  const store = storage();
  let name = store?.getItem(NAME) || "";
  if (!name) {
    name = `Guest ${Math.floor(1000 + Math.random() * 9000)}`;
    store?.setItem(NAME, name);
  }
  return name;
}

export function setDisplayName(name) {
  storage()?.setItem(NAME, name);
}

/** Keep the token of a freshly created/forked project and go to its editor. */
export function openProject(created) {
  const id = created.id ?? created.project?.id;
  saveToken(id, created.editToken);
  remember(id, { title: created.title ?? created.project?.title ?? "" });
  window.location.assign(`/p/${encodeURIComponent(id)}`);
}
