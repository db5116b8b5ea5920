// A WebSocket that reconnects by itself (exponential backoff with jitter) and reports its status.
// While the server's Redis or database is down it accepts a socket only to say so (an "unavailable" error,
// then close 4503): the backoff is reset by the first message that is not an error, not by the open, so such
// a server is asked ever less often; capped at 2 s (2.5 s with jitter), the page is back within seconds.
// A server shutting down (SIGTERM) says "reconnect" and closes with 4012: the page comes back at once, after a
// random 0-1 s (RESTART_SPREAD_MS) so that a whole class does not reconnect in the same instant; a server that
// still answers "reconnect" (it is the one going away) is then asked with the usual backoff.

/** Close code of a server that is restarting: come back now (PROTOCOL.md). */
export const RESTART_CLOSE_CODE = 4012;
export const RESTART_SPREAD_MS = 1000;

export class ReconnectingSocket {
  /** handlers: {onOpen(), onMessage(message), onStatus("connecting"|"open"|"closed"|"failed"),
   *  retryDelay(attempt) -> ms (default: exponential from 250 ms up to 2 s, ±25% jitter)} */
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.attempt = 0;
    this.socket = null;
    this.stopped = false;
    this.restarting = false; // told "reconnect" by the server on this socket
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
      if (message.type === "reconnect") {
        this.restarting = true; // the close (4012) follows; the page itself has nothing to do
        return;
      }
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
      const restarting = this.restarting || event.code === RESTART_CLOSE_CODE;
      this.restarting = false;
      this.handlers.onStatus?.("closed");
      if (!this.stopped) this.scheduleReconnect(restarting);
    });
  }

  scheduleReconnect(restarting = false) {
    clearTimeout(this.timer);
    const delay =
      restarting && this.attempt === 0
        ? Math.random() * RESTART_SPREAD_MS
        : (this.handlers.retryDelay?.(this.attempt) ?? Math.min(2000, 250 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5));
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
