// The dark-mode toggle in the header; theme-init.js has already applied the saved choice.

const KEY = "admission-playground:theme";
const listeners = new Set();

export function currentTheme() {
  return document.documentElement.dataset.theme === "dark" ? "dark" : "light";
}

export function onThemeChange(listener) {
  listeners.add(listener);
}

export function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    /* not persisted */
  }
  for (const listener of listeners) listener(theme);
}

export function installThemeToggle() {
  const button = document.getElementById("theme-toggle");
  if (!button) return;
  const label = () => {
    button.textContent = currentTheme() === "dark" ? "Light mode" : "Dark mode";
    button.setAttribute("aria-pressed", String(currentTheme() === "dark"));
  };
  label();
  button.addEventListener("click", () => {
    setTheme(currentTheme() === "dark" ? "light" : "dark");
    label();
  });
}
