// The set list: open a room (the teacher token goes to localStorage, never into a URL) or join by code.
import { api } from "./api.js";
import { h, onSubmit } from "./dom.js";
import { pageData } from "./page-data.js";

const data = pageData();
for (const button of document.querySelectorAll(".open-room")) {
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const room = await api("POST", `${data.apiBase}rooms`, { set: button.dataset.set, title: document.getElementById("room-title")?.value.trim() || "" });
      localStorage.setItem(`workshop:teacher:${room.code}`, room.teacherToken);
      location.assign(room.dashboardUrl);
    } catch (error) {
      button.disabled = false;
      button.after(h("p", { class: "ws-error" }, error.message));
    }
  });
}
const joinByCode = document.getElementById("join-by-code");
if (joinByCode) onSubmit(joinByCode, () => {
  const code = document.getElementById("join-code").value.trim().toUpperCase().replace(/[^A-Z0-9]/g, "");
  if (code) location.assign(`/w/${code}`);
});
