// Shared by the workshop pages: page data, DOM building with text only, a reconnecting WebSocket, the API.
// Nothing a person typed is ever inserted as HTML: only the server's sanitised task/hint HTML is.

export function pageData() {
  const node = document.getElementById("page-data");
  return node ? JSON.parse(node.textContent) : {};
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function setSanitisedHtml(node, html) {
  // `html` comes from the server's Markdown renderer + allow-list sanitiser (playground/workshops/services/markdown.py).
  node.innerHTML = html;
}

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export async function api(method, path, body, headers = {}) {
  const response = await fetch(path, {
    method,
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw Object.assign(new Error(data?.error?.message || response.statusText), { data, status: response.status });
  return data;
}

// A socket that reconnects with backoff (a restarted server resumes the room by token). The token goes in the
// first message ({type: "hello", token}), never in the URL (proxy logs, browser history).
export function roomSocket(path, token, onMessage, stateNode, onRefused = () => {}) {
  let socket = null;
  let delay = 500;
  let stopped = false;
  const show = (state, text) => { if (stateNode) { stateNode.dataset.state = state; stateNode.textContent = text; } };
  function open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}${path}`);
    socket.addEventListener("open", () => {
      delay = 500;
      show("open", "live");
      socket.send(JSON.stringify({ type: "hello", token }));
    });
    socket.addEventListener("message", (event) => onMessage(JSON.parse(event.data)));
    socket.addEventListener("close", (event) => {
      if (stopped || event.code === 4403 || event.code === 4404) {
        show("closed", "disconnected");
        if (!stopped) onRefused(event.code);
        return;
      }
      show("reconnecting", "reconnecting…");
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 8000);
    });
  }
  open();
  return {
    send(message) { if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message)); },
    stop() { stopped = true; socket?.close(); },
  };
}

export function documentsView(documents) {
  return (documents || []).map((doc) => el("figure", { class: "ws-doc" }, el("figcaption", {}, doc.name), el("pre", {}, doc.text)));
}

export function debounce(fn, ms) {
  let timer = null;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}
