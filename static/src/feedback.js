// Keystroke → result bookkeeping of the live page: which edits the results on screen do not reflect yet (they
// are then marked stale, never cleared), whether an edit's evaluation is still on its way (further typing is
// then held and sent as one push when the answer comes: no debounce wait when the server is idle, no queue of
// evaluations behind a busy one), and how long the oldest keystroke a result answers waited for it.

/** Longest a push waits for the evaluation of the one before (a slow policy, a lost answer): then it goes. */
export const ANSWER_WAIT_MS = 1000;

export class EditFeedback {
  /** onStale(stale: bool) when the results on screen stop or start reflecting every edit; onRelease() when
   * held typing may be sent. */
  constructor({ onStale = () => {}, onRelease = () => {}, now = () => performance.now(), wait = ANSWER_WAIT_MS } = {}) {
    this.onStale = onStale;
    this.onRelease = onRelease;
    this.now = now;
    this.wait = wait;
    this.typedSince = null; // time of the first local change not yet sent
    this.inflight = []; // [{seq, since, version}]: pushes whose evaluation has not been shown
    this.needed = -1; // the newest version whose results are awaited (others' edits too)
    this.shownVersion = -1;
    this.stale = false;
    this.timer = null;
  }

  /** A local change of a text: the results shown no longer reflect it. */
  typed() {
    if (this.typedSince === null) this.typedSince = this.now();
    this.update();
  }

  /** An edit's evaluation is on its way: hold further pushes until it is shown (or ANSWER_WAIT_MS). */
  get awaiting() {
    return this.inflight.some((e) => !e.released);
  }

  /** A push (clientSeq `seq`) carrying everything typed so far was sent. */
  sent(seq) {
    this.inflight.push({ seq, since: this.typedSince ?? this.now(), version: null, released: false });
    this.typedSince = null;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.release(), this.wait);
  }

  /** The server saved push `seq` as project version `version`; already shown (nothing new to evaluate): done. */
  acked(seq, version) {
    const entry = this.inflight.find((e) => e.seq === seq);
    if (!entry) return;
    entry.version = version;
    this.need(version);
    if (version <= this.shownVersion) this.answered(this.shownVersion);
  }

  /** A version whose results are awaited (another editor's change). */
  need(version) {
    if (typeof version === "number" && version > this.needed) this.needed = version;
    this.update();
  }

  /** The results of `version` are on screen: the time since the oldest keystroke they answer (null if none). */
  answered(version) {
    if (typeof version !== "number") return null;
    this.shownVersion = Math.max(this.shownVersion, version);
    const done = this.inflight.filter((e) => e.version !== null && e.version <= version);
    this.inflight = this.inflight.filter((e) => !done.includes(e));
    if (done.length && !this.inflight.length) this.release();
    this.update();
    return done.length ? Math.min(...done.map((e) => e.since)) : null;
  }

  /** A push that will bring no evaluation (refused, failed): stop waiting for it; what it carried is unsent
   * again, and goes when its sender retries (collab.js waits a moment after an error). */
  dropped(seq) {
    const entry = this.inflight.find((e) => e.seq === seq);
    if (!entry) return;
    this.inflight = this.inflight.filter((e) => e !== entry);
    this.typedSince = Math.min(this.typedSince ?? entry.since, entry.since);
    if (!this.awaiting) clearTimeout(this.timer);
    this.update();
  }

  /** A new connection: nothing is waited for any more. What is still unsent (`unsent`) goes again with the
   * resync; what was saved is answered by the connection's first evaluation, of `version` or newer. */
  reset(unsent, version) {
    let since = this.typedSince;
    for (const entry of this.inflight) since = Math.min(since ?? entry.since, entry.since);
    this.inflight = [];
    this.typedSince = unsent ? (since ?? this.now()) : null;
    clearTimeout(this.timer);
    this.timer = null;
    if (since !== null) this.need(version);
    this.update();
  }

  /** Stop holding typing: the answer came, or waiting for it took too long. */
  release() {
    clearTimeout(this.timer);
    this.timer = null;
    // Those still unanswered (it took too long) keep the results stale, but no longer hold further typing.
    for (const entry of this.inflight) entry.released = true;
    this.onRelease();
  }

  update() {
    const stale = this.typedSince !== null || this.inflight.length > 0 || this.shownVersion < this.needed;
    if (stale !== this.stale) {
      this.stale = stale;
      this.onStale(stale);
    }
  }
}
