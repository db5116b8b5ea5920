// The batch page's charts (Chart.js, registered piecemeal so only bar charts are bundled): denials by policy,
// by namespace, and the outcome counts over the whole object set. Colours come from the page's CSS variables
// and follow the dark-mode switch. Each canvas is an image labelled by its caption; the tables beside the
// charts carry the same figures for screen readers.

import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

const MAX_BARS = 15;
const charts = new Map();

function colours() {
  const style = getComputedStyle(document.documentElement);
  const v = (name) => style.getPropertyValue(name).trim();
  return { ok: v("--ok"), bad: v("--bad"), warn: v("--warn"), mut: v("--mut"), muted: v("--muted"), fg: v("--fg"), grid: v("--border"), accent: v("--accent") };
}

function top(entries, key) {
  return entries.filter(([, counts]) => counts[key] > 0).sort((a, b) => b[1][key] - a[1][key] || a[0].localeCompare(b[0])).slice(0, MAX_BARS);
}

function draw(id, config) {
  charts.get(id)?.destroy();
  const canvas = document.getElementById(id);
  if (!canvas) return;
  const c = colours();
  const chart = new Chart(canvas, {
    ...config,
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      indexAxis: config.horizontal ? "y" : "x",
      plugins: { legend: { display: config.data.datasets.length > 1, labels: { color: c.fg } } },
      scales: {
        x: { stacked: true, ticks: { color: c.fg, precision: 0 }, grid: { color: c.grid } },
        y: { stacked: true, ticks: { color: c.fg, precision: 0 }, grid: { color: c.grid } },
      },
    },
  });
  charts.set(id, chart);
}

function describe(id, text) {
  document.getElementById(id)?.setAttribute("aria-description", text);
}

/** Draw (or redraw) the three charts from a job summary (evaluator.batch.Summary.as_dict()). */
export function renderCharts(summary) {
  const c = colours();
  const policies = Object.entries(summary.policies || {})
    .sort((a, b) => b[1].denied - a[1].denied || a[0].localeCompare(b[0])).slice(0, MAX_BARS);
  draw("chart-policy", {
    type: "bar",
    horizontal: true,
    data: {
      labels: policies.map(([name]) => name),
      // denied always; warned, audited and error only when some policy has them
      datasets: [["denied", c.bad], ["warned", c.warn], ["audited", c.mut], ["error", c.muted]]
        .map(([key, colour]) => ({ label: key, data: policies.map(([, p]) => p[key] || 0), backgroundColor: colour }))
        .filter((set, i) => i === 0 || set.data.some((n) => n > 0)),
    },
  });
  describe("chart-policy", policies.map(([name, p]) => `${name}: ${p.denied} denied`).join("; ") || "no policy took part");
  const namespaces = top(Object.entries(summary.namespaces || {}), "denied");
  draw("chart-namespace", {
    type: "bar",
    horizontal: true,
    data: {
      labels: namespaces.map(([name]) => name || "(cluster-scoped)"),
      datasets: [{ label: "denied", data: namespaces.map(([, n]) => n.denied), backgroundColor: c.bad }],
    },
  });
  describe("chart-namespace", namespaces.map(([name, n]) => `${name || "cluster-scoped"}: ${n.denied}`).join("; ") || "no denials");
  const outcomes = [["allowed", c.ok], ["denied", c.bad], ["warned", c.warn], ["audited", c.mut], ["errors", c.muted]];
  draw("chart-outcome", {
    type: "bar",
    data: {
      labels: outcomes.map(([name]) => name),
      datasets: [{ label: "objects", data: outcomes.map(([name]) => summary[name] || 0), backgroundColor: outcomes.map(([, colour]) => colour) }],
    },
  });
  describe("chart-outcome", outcomes.map(([name]) => `${summary[name] || 0} ${name}`).join(", "));
}

/** Keep the charts' colours in step with the theme switch. */
export function followTheme(getSummary) {
  new MutationObserver(() => {
    const summary = getSummary();
    if (summary) renderCharts(summary);
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
}
