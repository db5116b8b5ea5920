// Following a job on the batch workers (a batch or an impact run) from its page: its progress socket
// (/ws/batch/<id>/, tried again after 1, 2, 4… up to 30 s) while that is open, and a poll of its REST state
// while it is not (it cannot connect, or closed before the job ended; a refused token too: the poll then
// says the job is gone). One follower a page; following another job stops following the first.

import { ReconnectingSocket } from "./socket.js";

const RETRY_MS = [1000, 2000, 4000, 8000, 16000, 30000];
const UNDER_WAY = ["reading", "queued", "running"];
const SOCKET_MESSAGES = ["state", "progress", "finished"];

export class JobFollower {
  /**
   * fetchState(job) → the job's state over REST (rejects with {status, error});
   * show(state, source): progress to show, source "socket" or "poll";
   * ended(state, source): the job is over (from the socket, the state may lack what only REST returns);
   * gone(): the job is unknown, or its token refused; unreachable(error): a look failed, tried again later.
   */
  constructor({ fetchState, show, ended, gone, unreachable, pollMs = 500 }) {
    Object.assign(this, { fetchState, show, ended, gone, unreachable, pollMs });
    this.job = null; // {id, token}
    this.polling = null;
    this.watching = null; // the job's progress socket
  }

  follow(job) {
    this.stop();
    this.job = job;
    if (!job) return;
    if (typeof WebSocket === "undefined") {
      this.poll();
      return;
    }
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new ReconnectingSocket(`${scheme}//${window.location.host}/ws/batch/${encodeURIComponent(job.id)}/`, {
      retryDelay: (attempt) => RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)],
      onOpen: () => socket.send({ type: "hello", token: job.token }),
      onMessage: (message) => {
        if (this.watching !== socket || !SOCKET_MESSAGES.includes(message.type) || !message.job) return;
        this.show(message.job, "socket");
        if (message.type === "finished") {
          this.stop();
          this.ended(message.job, "socket");
        }
      },
      onStatus: (status) => {
        if (this.watching === socket && (status === "closed" || status === "failed")) this.poll();
      },
    });
    this.watching = socket;
    socket.connect();
  }

  stop() {
    clearTimeout(this.polling);
    const socket = this.watching;
    this.watching = null;
    socket?.stop();
  }

  /** One look at the job's state over REST; again in a moment while it is under way and the socket closed. */
  async poll() {
    clearTimeout(this.polling);
    const job = this.job;
    if (!job || this.watching?.isOpen) return;
    let state;
    try {
      state = await this.fetchState(job);
    } catch (error) {
      if (error.status === 404 || error.status === 403) {
        this.stop();
        this.job = null;
        this.gone();
        return;
      }
      this.unreachable(error);
      this.polling = setTimeout(() => this.poll(), this.pollMs * 4);
      return;
    }
    if (this.watching?.isOpen || this.job !== job) return; // the socket is back, or another job is followed
    this.show(state, "poll");
    if (UNDER_WAY.includes(state.status)) {
      this.polling = setTimeout(() => this.poll(), this.pollMs);
      return;
    }
    this.stop(); // over: nothing more to follow
    await this.ended(state, "poll");
  }
}
