// The teacher's dashboard: live progress per student and exercise, watch a student's editor live (read-only,
// with the engine's markers), time boxes, co-teacher links, share, advance, close.
import { api } from "./api.js";
import { debounce, h, onSubmit, replaceChildren, setSanitisedHtml } from "./dom.js";
import { createEditor } from "./editors.js";
import { pageData } from "./page-data.js";
import { countdown, documentsView, roomSocket, splitDocuments } from "./workshop-room.js";


const data = pageData();
const $ = (id) => document.getElementById(id);
const tokenKey = `workshop:teacher:${data.code}`;
const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
if (fromHash) { localStorage.setItem(tokenKey, fromHash); history.replaceState(null, "", location.pathname); }
const token = localStorage.getItem(tokenKey);
let exercises = [];
let room = null;
let watching = null;
let presenting = false;
let role = null;
const watchEditors = new Map();  // document id → read-only editor of the watched student's fork
const timer = countdown($("time-box"), () => document.querySelectorAll("td.ws-cell").forEach(paintStuck));

function cellText(progress) { return progress ? `${progress.passed}/${progress.total}` : "–"; }

function minutes(seconds) { return seconds >= 60 ? `${Math.floor(seconds / 60)} min` : `${seconds} s`; }

/** Stuck: not complete and no progress for the teacher's N minutes (re-checked as time passes). */
function isStuck(progress) {
  const limit = room?.stuckMinutes ?? 5;
  if (!progress || progress.complete || !progress.progressedAt || limit <= 0) return false;
  return Date.now() - Date.parse(progress.progressedAt) >= limit * 60_000;
}

function paintCell(cell, progress) {
  cell.progress = progress;
  cell.replaceChildren(h("span", { class: "ws-score" }, cellText(progress)));
  cell.classList.toggle("pass", Boolean(progress?.complete));
  cell.classList.toggle("partial", Boolean(progress && !progress.complete && progress.passed > 0));
  cell.dataset.complete = String(Boolean(progress?.complete));
  if (progress?.submitted) cell.append(h("small", { class: "ws-submitted" }, " ✔ submitted"));
  cell.dataset.compiles = String(progress?.compiles ?? "");
  if (progress?.compiles === false) {
    cell.classList.add("broken");
    cell.append(h("small", { class: "ws-first-error", title: progress.firstError }, progress.firstError));
  } else cell.classList.remove("broken");
  if (progress) cell.append(h("small", { class: "ws-time" }, minutes(progress.secondsOnTask || 0)));
  paintStuck(cell);
}

/** Over time: the current exercise's time box is over and the student has not passed every check. */
function isOverTime(cell) {
  const box = room?.timeBox;
  return Boolean(box && Number(cell.dataset.exercise) === exercises[room.position]?.id && !cell.progress?.complete
    && Date.parse(box.deadline) <= Date.now());
}

function paintStuck(cell) {
  const over = isOverTime(cell);
  cell.dataset.overTime = String(over);
  cell.querySelector(".ws-over-time")?.remove();
  if (over) cell.append(h("small", { class: "ws-over-time" }, " over time"));
  const stuck = isStuck(cell.progress);
  cell.dataset.stuck = String(stuck);
  cell.classList.toggle("stuck", stuck);
  cell.querySelector(".ws-stuck")?.remove();
  if (stuck) cell.append(h("small", { class: "ws-stuck" }, " stuck"));
}

/** "Most common errors right now": the current exercise's errors grouped by class and location. */
function paintCommonErrors() {
  const current = exercises[room.position];
  const groups = new Map();
  for (const cell of document.querySelectorAll(`td.ws-cell[data-exercise="${current?.id}"]`)) {
    const name = cell.closest("tr").querySelector("th").textContent;
    const seen = new Set();
    for (const error of cell.progress?.errors || []) {
      if (seen.has(error.key)) continue;
      seen.add(error.key);
      const group = groups.get(error.key) || { ...error, students: [] };
      group.students.push(name);
      groups.set(error.key, group);
    }
  }
  const ranked = [...groups.values()].sort((a, b) => b.students.length - a.students.length).slice(0, 5);
  $("common-errors").replaceChildren(...(ranked.length ? ranked.map((g) => h("li", { class: "ws-common-error", dataset: { count: g.students.length } },
    h("strong", {}, `${g.students.length} × `), `${g.class}`, h("span", { class: "ws-muted" }, ` at ${g.document}${g.location ? ` ${g.location}` : ""}`),
    h("small", {}, ` (${g.students.join(", ")})`))) : [h("li", { class: "ws-muted" }, "no errors right now")]));
}

function row(participant) {
  const cells = exercises.map((exercise) => {
    const cell = h("td", { class: "ws-cell", dataset: { exercise: exercise.id } });
    paintCell(cell, participant.progress?.[String(exercise.id)]);
    return cell;
  });
  return h("tr", { dataset: { participant: participant.id }, class: participant.online ? "online" : "offline" },
    h("th", {}, h("button", { type: "button", class: "btn btn-quiet watch", onclick: () => watch(participant.id) }, participant.name)),
    h("td", { class: "ws-last" }, participant.lastActivity ? new Date(participant.lastActivity).toLocaleTimeString() : "–"),
    ...cells);
}

function render(dashboard) {
  room = dashboard.room;
  role = dashboard.role;
  exercises = dashboard.exercises;
  $("join-link").textContent = `${location.origin}${room.joinUrl}`;
  // The teacher link: the secret in the fragment (never sent to the server), to open the dashboard elsewhere.
  $("teacher-link").value = `${location.origin}${location.pathname}#token=${encodeURIComponent(token)}`;
  const current = exercises[room.position];
  $("current-exercise").textContent = `${room.position + 1} / ${exercises.length}: ${current.title}`;
  $("room-state").textContent = room.state === "closed" ? "closed" : "";
  showFlow();
  $("progress-head").replaceChildren(h("th", {}, "Student"), h("th", {}, "Last activity"),
    ...exercises.map((e) => h("th", { class: e.position === room.position ? "current" : "" }, String(e.position + 1))));
  $("progress-body").replaceChildren(...dashboard.participants.map(row));
  paintCommonErrors();
  $("stuck-minutes").value = String(room.stuckMinutes ?? 5);
  $("time-box-minutes").value = String(room.timeBox?.minutes ?? 0);
  $("time-box-locks").checked = Boolean(room.timeBox?.locks);
  timer.set(room.timeBox?.deadline);
  $("coteacher").hidden = role !== "owner";  // co-teachers run the room; only the owner hands out links
  const reference = $("reference");
  const task = h("div", { class: "ws-markdown" });
  setSanitisedHtml(task, current.taskHtml);
  reference.replaceChildren(task, h("h4", {}, "Checks"),
    h("ul", {}, current.checks.map((c) => h("li", {}, `${c.hidden ? "(hidden) " : ""}${c.title || c.name}: ${JSON.stringify(c.expected)}`))),
    h("h4", {}, `Hints shown: ${current.hintsShown} / ${current.hints.length}`),
    // The solution stays folded: a projected dashboard must not show it by accident.
    h("details", { class: "ws-teacher-solution" }, h("summary", {}, "Solution (only you see this)"), ...documentsView(current.solution)));
  $("export").onclick = (event) => { event.preventDefault(); exportCsv(); };
  $("teacher").hidden = false;
}

/** The results as CSV: fetched with the teacher token in a header (never in a URL, logs or history). */
async function exportCsv() {
  const response = await fetch(`${data.apiBase}rooms/${data.code}/results.csv`, { headers: { "X-Teacher-Token": token } });
  if (!response.ok) return;
  const link = h("a", { href: URL.createObjectURL(await response.blob()), download: `${data.code}-results.csv` });
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

/** Previous / next, and "Finish the workshop" (which closes the room) on the last exercise. */
function showFlow() {
  const closed = room.state === "closed";
  const last = room.position >= exercises.length - 1;
  $("previous").disabled = closed || room.position === 0;
  $("advance").disabled = closed;
  $("advance").textContent = last ? "Finish the workshop" : "Next exercise";
  $("advance").dataset.finish = String(last);
  for (const id of ["reveal-hint", "reveal-solution", "close-room", "present"]) $(id).disabled = closed;
}

function onProgress(message) {
  const line = document.querySelector(`tr[data-participant="${message.participant}"]`);
  if (!line) { socket.send({ type: "hello" }); return; }  // someone new: fetch the whole picture
  const cell = line.querySelector(`td[data-exercise="${message.exercise}"]`);
  if (cell) paintCell(cell, message);
  line.querySelector(".ws-last").textContent = new Date(message.lastActivity).toLocaleTimeString();
  paintCommonErrors();
}

function onParticipant(message) {
  const line = document.querySelector(`tr[data-participant="${message.id}"]`);
  if (!line) { socket.send({ type: "hello" }); return; }
  line.className = message.online ? "online" : "offline";
}

function watch(participantId) { socket.send({ type: "watch", participant: participantId }); }

/** The watched student's fork in the playground's editor, read-only, with the engine's error markers. */
function showWatch(message) {
  watching = message.participant.id;
  $("watch-name").textContent = message.participant.name;
  for (const editor of watchEditors.values()) editor.destroy();
  watchEditors.clear();
  replaceChildren($("watch-docs"), message.project.documents.map((doc) => {
    const host = h("div", { class: "ws-editor ws-codemirror", dataset: { docId: doc.id, docName: doc.name } });
    watchEditors.set(String(doc.id), createEditor(host, { text: doc.text, role: "document", readOnly: true, label: `${doc.name} (read-only)` }));
    return h("div", { class: "ws-editor-box" }, h("span", {}, doc.name), host);
  }));
  // Until the next evaluation: the last one's first errors, matched to the documents by name.
  for (const doc of message.project.documents) {
    watchEditors.get(String(doc.id))?.setServerErrors((message.errors || []).filter((e) => e.document === doc.name && e.line));
  }
  $("watch").hidden = false;
}

function onStudentEvaluated(message) {
  if (message.participant !== watching) return;
  for (const doc of message.documents || []) watchEditors.get(String(doc.id))?.setServerErrors(doc.errors || []);
}

function onMessage(message) {
  switch (message.type) {
    case "dashboard": render(message); break;
    case "progress": onProgress(message); break;
    case "participant": onParticipant(message); break;
    case "watching": showWatch(message); break;
    case "studentEdited": if (message.participant === watching) watchEditors.get(String(message.id))?.setText(message.text); break;
    case "studentEvaluated": onStudentEvaluated(message); break;
    case "timeBox": room = { ...room, timeBox: message.timeBox }; timer.set(message.timeBox?.deadline); break;
    case "closed": room = { ...room, ...message.room }; $("room-state").textContent = "closed"; showFlow(); break;
    case "error": $("room-state").textContent = message.error.message; break;
    default: break;
  }
}

const socket = token ? roomSocket(data.wsPath, { hello: () => ({ type: "hello", token }), onMessage, stateNode: $("ws-state") }) : null;
if (!socket) { $("no-token").hidden = false; $("ws-state").textContent = "no teacher token"; }

/** The presenter's text, split into documents at `---` lines. */
function presenterDocuments() {
  return splitDocuments($("presenter-text").value);
}
$("advance").addEventListener("click", () => {
  if ($("advance").dataset.finish !== "true") socket.send({ type: "advance" });
  else if (confirm("Finish the workshop? The room closes and students' work becomes read-only.")) socket.send({ type: "close" });
});
$("previous").addEventListener("click", () => { if (room.position > 0) socket.send({ type: "advance", position: room.position - 1 }); });
$("reveal-hint").addEventListener("click", () => socket.send({ type: "revealHint" }));
// Showing the solution to every student is a deliberate act: it asks first, and is never part of presenting.
$("reveal-solution").addEventListener("click", () => {
  if (confirm("Show the reference solution of this exercise to every student?")) socket.send({ type: "revealSolution" });
});
$("close-room").addEventListener("click", () => { if (confirm("Close the room for everyone?")) socket.send({ type: "close" }); });
$("unwatch").addEventListener("click", () => { socket.send({ type: "unwatch" }); watching = null; $("watch").hidden = true; });
onSubmit($("time-box-form"), () => {
  socket.send({ type: "timeBox", minutes: Number.parseInt($("time-box-minutes").value, 10) || 0, locks: $("time-box-locks").checked });
});
/** A co-teacher link: the dashboard with every control, under a token of its own (asking again replaces it). */
$("coteacher-create").addEventListener("click", async () => {
  try {
    const made = await api("POST", `${data.apiBase}rooms/${data.code}/coteachers`, undefined, { headers: { "X-Teacher-Token": token } });
    $("coteacher-link").value = `${location.origin}${made.dashboardUrl}#token=${encodeURIComponent(made.token)}`;
    $("coteacher-link").hidden = false;
  } catch (error) {
    $("room-state").textContent = error.message;
  }
});
setInterval(() => document.querySelectorAll("td.ws-cell").forEach(paintStuck), 15_000);
onSubmit($("stuck-form"), () => {
  socket.send({ type: "stuckMinutes", minutes: Number.parseInt($("stuck-minutes").value, 10) || 0 });
});
$("copy-teacher-link").addEventListener("click", async () => {
  $("teacher-link").select();
  try { await navigator.clipboard.writeText($("teacher-link").value); $("copy-teacher-link").textContent = "Copied"; } catch { /* selected: copy by hand */ }
});
onSubmit($("announce-form"), () => {
  socket.send({ type: "announce", text: $("announce-text").value });
});
$("present").addEventListener("click", () => { presenting = true; socket.send({ type: "present", documents: presenterDocuments() }); });
$("stop-present").addEventListener("click", () => { presenting = false; socket.send({ type: "present", documents: null }); });
$("presenter-text").addEventListener("input", debounce(() => {
  if (presenting) socket.send({ type: "present", documents: presenterDocuments() });
}, 300));
