// A WebSocket that reconnects by itself (exponential backoff with jitter) and reports its status.
// While the server's Redis or database is down it accepts a socket only to say so (an "unavailable" error,
// then close 4503): the backoff is reset by the first message that is not an error, not by the open, so such
// a server is asked ever less often; capped at 2 s (2.5 s with jitter), the page is back within seconds.

export class ReconnectingSocket {
  /** handlers: {onOpen(), onMessage(message), onStatus("connecting"|"open"|"closed"|"failed"),
   *  retryDelay(attempt) -> ms (default: exponential from 250 ms up to 2 s, ±25% jitter)} */
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.attempt = 0;
    this.socket = null;
    this.stopped = false;
    this.timer = null;
  }

  connect() {
    this.stopped = false;
    this.handlers.onStatus?.("connecting");
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.handlers.onStatus?.("open");
      this.handlers.onOpen?.();
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!message || typeof message !== "object") return;
      if (message.type !== "error") this.attempt = 0; // served: the next drop starts the backoff again
      this.handlers.onMessage?.(message);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (event.code === 4404 || event.code === 4403) {
        this.handlers.onStatus?.("failed");
        return;
      }
      this.handlers.onStatus?.("closed");
      if (!this.stopped) this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    clearTimeout(this.timer);
    const delay = this.handlers.retryDelay?.(this.attempt) ?? Math.min(2000, 250 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  get isOpen() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  /** Send a message; false when not connected (the caller keeps it for the resync). */
  send(message) {
    if (!this.isOpen) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Drop the connection now (tests and "reconnect" use it); it comes back by itself. */
  drop() {
    if (this.socket) this.socket.close();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.socket) this.socket.close();
  }
}
