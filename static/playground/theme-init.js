// Runs in <head> before first paint: applies the saved or system colour scheme and the presenter zoom
// (no inline script: CSP). static/playground/site-header.js wires the buttons that change them.
(function () {
  var saved = null;
  var zoom = null;
  try {
    saved = localStorage.getItem("admission-playground:theme");
    zoom = localStorage.getItem("admission-playground:zoom");
  } catch (e) {
    saved = null;
  }
  var dark = saved ? saved === "dark" : window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  document.documentElement.dataset.zoom = zoom === "presenter" ? "presenter" : "normal";
})();
