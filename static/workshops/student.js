// The student's page: join with a display name, edit the private fork, see checks pass live, submit.
import { api, debounce, documentsView, el, pageData, roomSocket, setSanitisedHtml } from "./common.js";

// The playground's CodeMirror editor, from the bundle `make frontend` builds; plain text areas without it.
const codemirror = await import(new URL("../dist/workshop-editors.js", import.meta.url).href).catch(() => null);

const data = pageData();
const tokenKey = `workshop:student:${data.code}`;
const $ = (id) => document.getElementById(id);
let socket = null;
let clientSeq = 0;
let exerciseId = null;

/** Each check: the author's title, then what the student's policy actually did (outcome and message);
 * the comparison with the expectation only when the author chose to show it (it may quote the answer). */
function showChecks(checks, progress) {
  $("checks").replaceChildren(...(checks || []).map((check) => el("li", {
    class: `ws-check ${check.verdict}`, dataset: { check: check.name, verdict: check.verdict },
  }, el("span", { class: "ws-verdict" }, check.verdict === "pass" ? "✓" : check.verdict === "fail" ? "✗" : "·"),
  " ", check.hidden ? "(hidden) " : "", el("span", { class: "ws-check-title" }, check.title || check.name),
  check.outcome ? el("div", { class: "ws-check-actual" }, `Your policy: ${check.outcome}`,
    check.message ? el("pre", { class: "ws-check-message" }, check.message) : null) : null,
  check.explanation && check.verdict === "fail" ? el("small", { class: "ws-check-expected" }, check.explanation) : null)));
  if (progress) {
    $("progress").textContent = `${progress.passed} / ${progress.total}`;
    $("progress").dataset.complete = String(progress.complete);
  }
}

const editors = new Map();  // document id → the CodeMirror editor handle (when the bundle is built)

/** A message with cel-go's caret excerpt (" | expr" / " | ...^") in a monospace block. */
function messageParts(message) {
  const text = String(message ?? "");
  const cut = text.search(/\n \| /);
  return cut < 0 ? [text] : [text.slice(0, cut), el("pre", { class: "caret-excerpt" }, text.slice(cut + 1))];
}

/** Each document's errors: a "name:line:column" link to the place (the editor marks it too), then the message. */
function showErrors(evaluation) {
  const items = [];
  for (const doc of evaluation.documents || []) {
    const editor = editors.get(String(doc.id));
    editor?.setServerErrors(doc.errors || []);
    for (const error of doc.errors || []) {
      const where = `${doc.name}${error.line ? `:${error.line}${error.column ? `:${error.column}` : ""}` : ""}`;
      const link = editor && error.line
        ? el("a", { href: "#", class: "ws-goto", onclick: (event) => { event.preventDefault(); editor.goTo(error.line, error.column || 1); } }, where)
        : where;
      items.push(el("div", { class: "ws-error", dataset: { line: error.line ?? "" } }, link, ": ", ...messageParts(error.message),
        error.hint ? el("span", { class: "error-hint" }, `Hint: ${error.hint}`) : null));
    }
  }
  for (const error of evaluation.errors || []) items.push(el("div", { class: "ws-error" }, ...messageParts(error.message)));
  $("doc-errors").replaceChildren(...items);
}

function showExercise(state) {
  exerciseId = state.exercise.id;
  $("exercise-number").textContent = `Exercise ${state.exercise.position + 1} of ${state.room.exerciseCount}`;
  $("exercise-title").textContent = state.exercise.title;
  setSanitisedHtml($("task"), state.exercise.taskHtml);
  $("hints").replaceChildren();
  for (const hint of state.exercise.hints) addHint(hint);
  showSolution(state.exercise.solution);
  $("hidden-note").textContent = state.exercise.hiddenChecks ? `${state.exercise.hiddenChecks} hidden check(s) count after you submit` : "";
  editors.clear();
  const boxes = state.fork.project.documents.map((doc) => {
    const send = debounce((text) => {
      clientSeq += 1;
      socket.send({ type: "edit", target: "document", id: doc.id, text, clientSeq });
    }, 250);
    if (codemirror) {
      const host = el("div", { class: "ws-editor ws-codemirror", dataset: { docId: doc.id, docName: doc.name } });
      editors.set(String(doc.id), codemirror.createEditor(host, { text: doc.text, role: "document", label: doc.name, onChange: send }));
      return el("div", { class: "ws-editor-box" }, el("span", {}, doc.name), host);
    }
    const area = el("textarea", { class: "ws-editor", spellcheck: "false", rows: Math.min(30, doc.text.split("\n").length + 2), dataset: { docId: doc.id, docName: doc.name } });
    area.value = doc.text;
    area.addEventListener("input", () => send(area.value));
    return el("label", { class: "ws-editor-box" }, el("span", {}, doc.name), area);
  });
  $("documents").replaceChildren(...boxes);
  showChecks([], state.progress);
  showAnnouncement(state.room.announcement);
  showPresenting(state.room.presenting);
  $("student").hidden = false;
  if (state.room.state === "closed") showClosed();
}

/** A closed room: the work stays readable, nothing can be typed or submitted (the server refuses it too). */
function showClosed() {
  $("closed-banner").hidden = false;
  $("submit").disabled = true;
  for (const editor of editors.values()) editor.setReadOnly(true);
  for (const area of document.querySelectorAll("textarea.ws-editor")) area.readOnly = true;
}

function addHint(hint) {
  const box = el("div", { class: "ws-hint", dataset: { hint: hint.index } }, el("strong", {}, `Hint ${hint.index + 1}`));
  const body = el("div", { class: "ws-markdown" });
  setSanitisedHtml(body, hint.html);
  box.append(body);
  $("hints").append(box);
}

function showSolution(documents) {
  $("solution").hidden = !documents;
  $("solution-docs").replaceChildren(...documentsView(documents));
}

function showAnnouncement(text) {
  $("announcement").hidden = !text;
  $("announcement").textContent = text || "";
}

function showPresenting(presenting) {
  $("presenting").hidden = !presenting;
  $("presenting-docs").replaceChildren(...documentsView(presenting?.documents));
}

function onMessage(message) {
  switch (message.type) {
    case "welcome":
    case "exercise": showExercise(message); break;
    case "evaluation":
      if (message.exercise === exerciseId) { showChecks(message.checks, message.progress); showErrors(message); }
      break;
    case "hint": if (message.exercise === exerciseId && !document.querySelector(`[data-hint="${message.index}"]`)) addHint(message); break;
    case "solution": if (message.exercise === exerciseId) showSolution(message.documents); break;
    case "announcement": showAnnouncement(message.text); break;
    case "presenting": showPresenting(message.presenting); break;
    case "closed": showClosed(); break;
    case "error": $("doc-errors").replaceChildren(el("p", { class: "ws-error" }, message.error.message)); break;
    default: break;
  }
}

function showJoin() {
  $("join-form").hidden = false;
  $("student").hidden = true;
  $("ws-state").textContent = "not joined";
}

setInterval(() => socket?.send({ type: "ping" }), 30_000);  // "online" on the teacher's dashboard

function start(token) {
  $("join-form").hidden = true;
  // A token the room does not know (another room, a reset database): forget it and join again.
  socket = roomSocket(data.wsPath, token, onMessage, $("ws-state"), () => { localStorage.removeItem(tokenKey); showJoin(); });
}

$("submit").addEventListener("click", () => socket?.send({ type: "submit" }));
$("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const joined = await api("POST", `${data.apiBase}rooms/${data.code}/join`, { displayName: $("display-name").value });
    localStorage.setItem(tokenKey, joined.token);
    start(joined.token);
  } catch (error) {
    $("join-error").textContent = error.message;
  }
});

const saved = localStorage.getItem(tokenKey);
if (saved) start(saved);
else if (data.room?.state === "closed") { $("closed-banner").hidden = false; $("ws-state").textContent = "room closed"; }
else showJoin();
