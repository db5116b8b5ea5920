// Runs in <head> before first paint: applies the saved or system colour scheme (no inline script: CSP).
(function () {
  var saved = null;
  try {
    saved = localStorage.getItem("admission-playground:theme");
  } catch (e) {
    saved = null;
  }
  var dark = saved ? saved === "dark" : window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
})();
