// The bar charts of the job pages (batch, compare), drawn alike: Chart.js registered piecemeal so only bar
// charts are bundled, colours from the page's CSS variables, redrawn when the dark-mode switch flips. Each
// canvas is an image labelled by its caption and described by its figures (`describe`).

import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export const MAX_BARS = 15;
const charts = new Map();

export function colours() {
  const style = getComputedStyle(document.documentElement);
  const v = (name) => style.getPropertyValue(name).trim();
  return { ok: v("--ok"), bad: v("--bad"), warn: v("--warn"), mut: v("--mut"), muted: v("--muted"), fg: v("--fg"), grid: v("--border") };
}

/** Draw (or redraw) the bar chart on canvas `id`: stacked, horizontal when `config.horizontal`. */
export function draw(id, config) {
  charts.get(id)?.destroy();
  const canvas = document.getElementById(id);
  if (!canvas) return;
  const c = colours();
  charts.set(id, new Chart(canvas, {
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
  }));
}

export function describe(id, text) {
  document.getElementById(id)?.setAttribute("aria-description", text);
}

/** Redraw with `render(getSummary())` whenever the theme switches (the colours are the theme's). */
export function redrawOnThemeChange(getSummary, render) {
  new MutationObserver(() => {
    const summary = getSummary();
    if (summary) render(summary);
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
}
