// The compare page's charts (bar-charts.js): requests newly denied per policy and per namespace, and, for an
// audit log, per hour the requests each policy newly denies (the summary's policyTimeline) beside the hour's
// other changes; the tables beside the charts carry the same figures for screen readers.

import { MAX_BARS, colours, describe, draw, redrawOnThemeChange } from "./bar-charts.js";

const MAX_HOURS = 168; // a week of hours; a longer log shows its last week
const PALETTE_SIZE = 6; // policies drawn apart over time; the figure's description names every one

function showEmpty(id, empty, text) {
  const box = document.getElementById(id)?.closest(".chart-box");
  if (!box) return;
  box.style.display = empty ? "none" : "";
  let note = box.nextElementSibling;
  if (!note?.classList.contains("chart-empty")) {
    note = document.createElement("p");
    note.className = "chart-empty muted";
    box.after(note);
  }
  note.textContent = text;
  note.hidden = !empty;
}

function newlyDenied(entries) {
  return entries.filter(([, n]) => n.newlyDenied > 0)
    .sort((a, b) => b[1].newlyDenied - a[1].newlyDenied || a[0].localeCompare(b[0])).slice(0, MAX_BARS);
}

/** Draw (or redraw) the charts from an impact summary (evaluator.batch.impact.ImpactSummary.as_dict()). */
export function renderCharts(summary) {
  const c = colours();
  const policies = newlyDenied(Object.entries(summary.policies || {}));
  draw("chart-policy", {
    type: "bar",
    horizontal: true,
    data: {
      labels: policies.map(([name]) => name),
      datasets: [{ label: "newly denied", data: policies.map(([, p]) => p.newlyDenied), backgroundColor: c.bad }],
    },
  });
  showEmpty("chart-policy", !policies.length, "No policy newly denies anything.");
  describe("chart-policy", policies.map(([name, p]) => `${name}: ${p.newlyDenied} newly denied`).join("; ") || "no policy denies anything newly");
  const namespaces = newlyDenied(Object.entries(summary.namespaces || {}));
  draw("chart-namespace", {
    type: "bar",
    horizontal: true,
    data: {
      labels: namespaces.map(([name]) => name || "(cluster-scoped)"),
      datasets: [{ label: "newly denied", data: namespaces.map(([, n]) => n.newlyDenied), backgroundColor: c.bad }],
    },
  });
  showEmpty("chart-namespace", !namespaces.length, "No namespace has a newly denied request.");
  describe("chart-namespace", namespaces.map(([name, n]) => `${name || "cluster-scoped"}: ${n.newlyDenied}`).join("; ") || "no request newly denied");
  const hours = Object.entries(summary.timeline || {}).sort((a, b) => a[0].localeCompare(b[0])).slice(-MAX_HOURS);
  const figure = document.getElementById("time-figure");
  if (figure) figure.hidden = !hours.length;
  if (!hours.length) return;
  // Newly denied per policy and hour (policyTimeline), stacked; the other changes of each hour beside them.
  const perPolicy = Object.entries(summary.policyTimeline || {})
    .map(([name, byHour]) => [name, hours.map(([hour]) => byHour[hour]?.newlyDenied || 0)])
    .filter(([, data]) => data.some((n) => n > 0))
    .sort((a, b) => b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0) || a[0].localeCompare(b[0]))
    .slice(0, PALETTE_SIZE);
  const palette = [c.bad, c.warn, c.mut, c.fg, c.muted, c.ok];
  const others = hours.map(([, n]) => Math.max(0, (n.changed || 0) - (n.newlyDenied || 0)));
  draw("chart-time", {
    type: "bar",
    data: {
      labels: hours.map(([hour]) => hour.slice(5, 16).replace("T", " ")),
      datasets: [
        ...(perPolicy.length
          ? perPolicy.map(([name, data], i) => ({ label: `${name}: newly denied`, data, backgroundColor: palette[i % palette.length] }))
          : [{ label: "newly denied", data: hours.map(([, n]) => n.newlyDenied || 0), backgroundColor: c.bad }]),
        { label: "other changes", data: others, backgroundColor: c.grid },
      ].filter((set, i) => i === 0 || set.data.some((n) => n > 0)),
    },
  });
  describe("chart-time", hours.filter(([, n]) => n.changed).map(([hour, n]) => `${hour}: ${n.newlyDenied} newly denied of ${n.changed} changed`).join("; ") || "no change at any hour");
}

/** Keep the charts' colours in step with the theme switch. */
export function followTheme(getSummary) {
  redrawOnThemeChange(getSummary, renderCharts);
}
