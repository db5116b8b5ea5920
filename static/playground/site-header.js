// The header's controls on every page (the editor bundle is not needed): dark mode and presenter zoom.
// theme-init.js has already applied both saved choices before first paint; this only wires the buttons.

const THEME_KEY = "admission-playground:theme";
const ZOOM_KEY = "admission-playground:zoom";
const root = document.documentElement;

function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}

function toggle(id, { pressed, label, flip }) {
  const button = document.getElementById(id);
  if (!button) return;
  const show = () => {
    button.setAttribute("aria-pressed", String(pressed()));
    if (label) button.textContent = label();
  };
  show();
  button.addEventListener("click", () => {
    flip();
    show();
  });
}

toggle("theme-toggle", {
  pressed: () => root.dataset.theme === "dark",
  label: () => (root.dataset.theme === "dark" ? "Light mode" : "Dark mode"),
  flip: () => {
    root.dataset.theme = root.dataset.theme === "dark" ? "light" : "dark";
    remember(THEME_KEY, root.dataset.theme);
  },
});

// Presenter zoom: large type for a projector (every size in the stylesheet is in rem, so it all scales).
toggle("zoom-toggle", {
  pressed: () => root.dataset.zoom === "presenter",
  flip: () => {
    root.dataset.zoom = root.dataset.zoom === "presenter" ? "normal" : "presenter";
    remember(ZOOM_KEY, root.dataset.zoom);
  },
});

// Phones: one header row; "Menu" opens the links, Presenter and Dark mode (the header's data-open shows them).
function foldingMenu(buttonId, container) {
  const button = document.getElementById(buttonId);
  if (!button || !container) return;
  button.addEventListener("click", () => {
    const open = container.dataset.open !== "true";
    container.dataset.open = String(open);
    button.setAttribute("aria-expanded", String(open));
  });
}

foldingMenu("site-menu-toggle", document.querySelector(".site-header"));
// The editor's toolbar on phones: the title and "More" in one row; the rest opens below them.
foldingMenu("toolbar-more", document.querySelector(".toolbar"));
