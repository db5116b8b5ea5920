// The batch page's charts (bar-charts.js): denials by policy, by namespace, and the outcome counts over the
// whole object set; the tables beside the charts carry the same figures for screen readers.

import { MAX_BARS, colours, describe, draw, redrawOnThemeChange } from "./bar-charts.js";

function top(entries, key) {
  return entries.filter(([, counts]) => counts[key] > 0).sort((a, b) => b[1][key] - a[1][key] || a[0].localeCompare(b[0])).slice(0, MAX_BARS);
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
  redrawOnThemeChange(getSummary, renderCharts);
}
