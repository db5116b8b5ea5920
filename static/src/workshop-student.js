// The student's page: join with a display name, edit the private fork in the playground's editor, see the
// playground's results (decision, kubectl text, tuples, trace, configuration errors) and the exercise's
// checks live, submit. Edits wait in a queue until the server acknowledges them: a reconnect resends them.

import { api } from "./api.js";
import { debounce, h, replaceChildren, setSanitisedHtml } from "./dom.js";
import { createEditor } from "./editors.js";
import { GOTO_EVENT } from "./locations.js";
import { pageData } from "./page-data.js";
import { ResultsPane } from "./results-pane.js";
import { EditQueue, countdown, documentsView, roomSocket } from "./workshop-room.js";

const data = pageData();
const tokenKey = `workshop:student:${data.code}`;
const $ = (id) => document.getElementById(id);
let socket = null;
let exerciseId = null;
let order = [];  // the fork's sample requests, in the project's order (the results pane sorts by it)
const editors = new Map();  // document id → editor handle {getText, setText, setServerErrors, setReadOnly, goTo}
let timeBox = null;
let hiddenCount = 0;
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
let roomClosed = false;
const timer = countdown($("time-box"), () => applyTimeLock());
let results = null;

const edits = new EditQueue((id, text, clientSeq) =>
  socket?.send({ type: "edit", target: "document", id: Number(id), text, clientSeq }));

/** Each check: the author's title, then what the student's policy actually did (outcome and message);
 * the comparison with the expectation only when the author chose to show it (it may quote the answer). */
function showChecks(checks, progress) {
  replaceChildren($("checks"), (checks || []).map((check) => h("li", {
    class: `ws-check ${check.verdict}`, dataset: { check: check.name, verdict: check.verdict },
  }, h("span", { class: "ws-verdict" }, check.verdict === "pass" ? "✓" : check.verdict === "fail" ? "✗" : "·"),
  " ", check.hidden ? "(hidden) " : "", h("span", { class: "ws-check-title" }, check.title || check.name),
  check.outcome ? h("div", { class: "ws-check-actual" }, `Your policy: ${check.outcome}`,
    check.message ? h("pre", { class: "ws-check-message" }, check.message) : null) : null,
  check.explanation && check.verdict === "fail" ? h("small", { class: "ws-check-expected" }, check.explanation) : null)));
  if (progress) {
    $("progress").textContent = `${progress.passed} / ${progress.total}`;
    $("progress").dataset.complete = String(progress.complete);
    // The count is of the checks shown: hidden ones join it when the work is submitted.
    const pending = progress.hiddenPending || 0;
    if (progress.submitted) $("hidden-note").textContent = hiddenCount ? `submitted: ${plural(hiddenCount, "hidden check")} included` : "";
    else if (pending) $("hidden-note").textContent = `+ ${plural(pending, "hidden check")} after you submit`;
  }
}

/** The engine's errors as markers in the editors; the results pane lists them with "line L:C" links. */
function markEditors(evaluation) {
  for (const doc of evaluation.documents || []) editors.get(String(doc.id))?.setServerErrors(doc.errors || []);
}

/** The playground's editor; a plain text area if it cannot start (an old browser). */
function editorBox(doc, readOnly) {
  const send = debounce((text) => edits.change(doc.id, text), 250);
  try {
    const host = h("div", { class: "ws-editor ws-codemirror", dataset: { docId: doc.id, docName: doc.name } });
    editors.set(String(doc.id), createEditor(host, { text: edits.textOf(doc), role: "document", label: doc.name, readOnly, onChange: send }));
    return h("div", { class: "ws-editor-box" }, h("span", {}, doc.name), host);
  } catch {
    const area = h("textarea", { class: "ws-editor", spellcheck: "false", readOnly, rows: Math.min(30, doc.text.split("\n").length + 2),
      dataset: { docId: doc.id, docName: doc.name }, value: edits.textOf(doc), oninput: (event) => send(event.target.value) });
    return h("label", { class: "ws-editor-box" }, h("span", {}, doc.name), area);
  }
}

function showExercise(state) {
  if (state.exercise.id !== exerciseId) edits.reset();  // another exercise: nothing of the last one is pending
  exerciseId = state.exercise.id;
  $("exercise-number").textContent = `Exercise ${state.exercise.position + 1} of ${state.room.exerciseCount}`;
  $("exercise-title").textContent = state.exercise.title;
  setSanitisedHtml($("task"), state.exercise.taskHtml);
  replaceChildren($("hints"));
  for (const hint of state.exercise.hints) addHint(hint);
  showSolution(state.exercise.solution);
  hiddenCount = state.exercise.hiddenChecks || 0;
  $("hidden-note").textContent = hiddenCount ? `+ ${plural(hiddenCount, "hidden check")} after you submit` : "";
  for (const editor of editors.values()) editor.destroy?.();
  editors.clear();
  const closed = state.room.state === "closed";
  replaceChildren($("documents"), state.fork.project.documents.map((doc) => editorBox(doc, closed)));
  order = state.fork.project.requests || [];
  results = new ResultsPane($("results"));
  showChecks([], state.progress);
  showAnnouncement(state.room.announcement);
  showPresenting(state.room.presenting);
  $("student").hidden = false;
  setTimeBox(state.room.timeBox);
  if (closed) showClosed();
  edits.resend();  // typed while offline: the server has not seen it yet
}

/** A time box the teacher chose to lock: once over, the editors are read-only until the teacher changes it. */
function applyTimeLock() {
  const locked = Boolean(timeBox?.locks) && Date.parse(timeBox.deadline) <= Date.now();
  $("time-up").hidden = !locked;
  if (roomClosed) return;
  for (const editor of editors.values()) editor.setReadOnly(locked);
  for (const area of document.querySelectorAll("textarea.ws-editor")) area.readOnly = locked;
}

function setTimeBox(box) {
  timeBox = box || null;
  timer.set(timeBox?.deadline);
  applyTimeLock();
}

/** A closed room: the work stays readable, nothing can be typed or submitted (the server refuses it too). */
function showClosed() {
  roomClosed = true;
  $("closed-banner").hidden = false;
  $("submit").disabled = true;
  for (const editor of editors.values()) editor.setReadOnly(true);
  for (const area of document.querySelectorAll("textarea.ws-editor")) area.readOnly = true;
}

function addHint(hint) {
  const body = setSanitisedHtml(h("div", { class: "ws-markdown" }), hint.html);
  $("hints").append(h("div", { class: "ws-hint", dataset: { hint: hint.index } }, h("strong", {}, `Hint ${hint.index + 1}`), body));
}

function showSolution(documents) {
  $("solution").hidden = !documents;
  replaceChildren($("solution-docs"), documentsView(documents));
}

function showAnnouncement(text) {
  $("announcement").hidden = !text;
  $("announcement").textContent = text || "";
}

function showPresenting(presenting) {
  $("presenting").hidden = !presenting;
  replaceChildren($("presenting-docs"), documentsView(presenting?.documents));
}

function onEvaluation(message) {
  if (message.exercise !== exerciseId) return;
  showChecks(message.checks, message.progress);
  markEditors(message);
  replaceChildren($("room-error"));
  results?.showAll(message, order);
}

function onMessage(message) {
  switch (message.type) {
    case "welcome":
    case "exercise": showExercise(message); break;
    case "ack": edits.ack(message); break;
    case "evaluation": onEvaluation(message); break;
    case "hint": if (message.exercise === exerciseId && !document.querySelector(`[data-hint="${message.index}"]`)) addHint(message); break;
    case "solution": if (message.exercise === exerciseId) showSolution(message.documents); break;
    case "announcement": showAnnouncement(message.text); break;
    case "presenting": showPresenting(message.presenting); break;
    case "timeBox": setTimeBox(message.timeBox); break;
    case "closed": showClosed(); break;
    case "error":
      if (message.clientSeq != null) edits.reset();  // a refused edit (closed room, time up) is not retried
      replaceChildren($("room-error"), h("p", { class: "ws-error" }, message.error.message));
      break;
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
  socket = roomSocket(data.wsPath, {
    hello: () => ({ type: "hello", token }), // the token in the first message, never in the URL
    onMessage,
    stateNode: $("ws-state"),
    onRefused: () => { socket?.stop(); localStorage.removeItem(tokenKey); showJoin(); },
  });
}

// "line L:C" links of the results pane: the documents are numbered as the fork lists them.
document.addEventListener(GOTO_EVENT, (event) => {
  const { docId, docIndex, line, column } = event.detail;
  const editor = docId != null ? editors.get(String(docId)) : [...editors.values()][docIndex ?? 0];
  editor?.goTo(line, column);
});
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
