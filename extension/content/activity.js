// @ts-check
/**
 * What the page still has under way after an action, for settle.
 *
 * Runs in the page's own world (manifest content script, world MAIN) at document_start in every
 * frame, before the page's scripts: it wraps `setTimeout`, `requestAnimationFrame`, `fetch` and
 * `XMLHttpRequest` and notes work started since a given moment that has not finished — a request
 * not yet answered, a short timer or an animation frame callback not yet run. Settle (isolated world) asks with a cancelable event on the
 * document whose detail is that moment; the event comes back cancelled while such work is
 * pending, and a second event tells whether this script is here at all. So a click whose
 * effect lands from a 120 ms timer or after a fetch settles when the effect has landed, and a
 * click with no such work settles at once instead of after a fixed window. A form submitted or
 * a link followed in this frame is pending until the navigation shows (see `leaving`).
 *
 * A page's polling loop must not hold settle forever: a timer set from inside a timer callback
 * set from inside another one (or a frame callback two frames on) is a loop and is not waited for, nor are timers over a second or
 * requests older than two seconds. Nothing of the page's is read: a page can at most make the
 * agent wait, and settle is bounded by its own deadline.
 *
 * It also tells whether the page sent anything since a given moment (a request started or a form
 * submitted, answered or not): an action that did is one whose effect may be on the server, which
 * the agent must not send again unseen (host.agent.effects). A request sent from an interval or
 * from deep in a timer chain is the page's own polling and does not count.
 *
 * It tells what still holds the document's load: a frame not yet loaded or an image not yet
 * complete that a person could see. A page held only by what nobody sees (a hidden "forever
 * frame" of a long-polling chat) is usable before its load, which may never come (sw/settle.js).
 *
 * Apart from that, it tells whether any script may be moving things right now, whatever started
 * it: a frame callback not yet run or a short timer or interval (of any generation, loops
 * included). Where none is, an element whose box is unchanged by the action's scroll is where it
 * will be at the press, and the action need not wait a frame to see it hold still.
 */
(() => {
  const BUSY = "__waymark_busy";
  const SENT = "__waymark_sent";
  const HERE = "__waymark_activity_here";
  const MOTION_FRAMES = "__waymark_motion_frames";
  const MOTION_TIMERS = "__waymark_motion_timers";
  const LOAD_HELD = "__waymark_load_held";
  const g = /** @type {typeof globalThis & Record<string, unknown>} */ (globalThis);
  // No mark on the page's global (a page would see Waymark there): the manifest runs this once per document.

  /** Timers longer than this are schedules, not an action's effect. */
  const SHORT_TIMER_MS = 1000;
  /** A request open longer than this is a long poll or a stalled call, not an action's effect. */
  const REQUEST_MS = 2000;
  /** Timer generations waited for: set by an event (0) or by such a timer (1); deeper is a loop. */
  const MAX_GENERATION = 1;
  /** An answered request stays pending this long: reading the body and acting on it come next. */
  const ANSWERED_TAIL_MS = 50;
  /** A frame callback is pending at most this long: a hidden tab may not render for a long time. */
  const FRAME_MS = 100;
  /** Timers and intervals this short may be stepping an animation. */
  const MOTION_TIMER_MS = 100;

  /** Pending work: when it started and until when it matters. @type {Set<{start: number, until: number}>} */
  const pending = new Set();
  let generation = 0;
  /** When the page last started a request or submitted a form (performance.now()). */
  let lastSent = -Infinity;
  /** Interval callbacks running now: what they send is the page's polling, not an action's effect. */
  let polling = 0;

  const native = {
    setTimeout: g.setTimeout, clearTimeout: g.clearTimeout, setInterval: g.setInterval, clearInterval: g.clearInterval,
    fetch: g.fetch, send: XMLHttpRequest.prototype.send,
    requestAnimationFrame: g.requestAnimationFrame, cancelAnimationFrame: g.cancelAnimationFrame,
  };
  /** @type {Map<number, {start: number, until: number}>} */
  const timers = new Map();
  /** @type {Map<number, {start: number, until: number}>} */
  const frames = new Map();
  /**
   * What may move things: frame callbacks of any generation not yet run, and short timers not
   * yet run or intervals not yet cleared (one id space, as clearTimeout and clearInterval share it).
   */
  const motion = { frames: new Set(), timers: new Set() };

  /**
   * Keep a wrapper's native face (name, length, toString) so pages that check it see nothing new.
   * @template {Function} F @param {F} wrapper @param {Function} original @returns {F}
   */
  function disguise(wrapper, original) {
    Object.defineProperty(wrapper, "toString", { value: () => original.toString() });
    return wrapper;
  }

  g.setTimeout = disguise({
    /** @param {TimerHandler} handler @param {number=} delay @param {unknown[]} args */
    setTimeout(handler, delay, ...args) {
      if (typeof handler !== "function") return native.setTimeout.call(g, handler, delay, ...args);
      // Every function timer carries its generation down its chain, so a loop stays a loop
      // however long it runs; only the first generations of short timers are waited for.
      const mine = generation + 1;
      const now = performance.now();
      const ms = Number(delay) || 0;
      const work = ms <= SHORT_TIMER_MS && generation <= MAX_GENERATION ? { start: now, until: now + ms + REQUEST_MS } : null;
      /** @type {number} */
      const id = native.setTimeout.call(g, /** @this {unknown} @param {unknown[]} a */ function (...a) {
        motion.timers.delete(id);
        if (work) {
          timers.delete(id);
          pending.delete(work);
        }
        const outer = generation;
        generation = mine;
        try {
          return handler.apply(this, a);
        } finally {
          generation = outer;
        }
      }, delay, ...args);
      if (work) {
        track(work);
        timers.set(id, work);
      }
      if (ms <= MOTION_TIMER_MS) motion.timers.add(id);
      return id;
    },
  }.setTimeout, native.setTimeout);

  g.clearTimeout = disguise({
    /** @param {number=} id */
    clearTimeout(id) {
      if (id === undefined) return native.clearTimeout.call(g, id);
      motion.timers.delete(id);
      const work = timers.get(id);
      if (work) {
        timers.delete(id);
        pending.delete(work);
      }
      return native.clearTimeout.call(g, id);
    },
  }.clearTimeout, native.clearTimeout);

  g.setInterval = disguise({
    /** @param {TimerHandler} handler @param {number=} delay @param {unknown[]} args */
    setInterval(handler, delay, ...args) {
      if (typeof handler === "function") {
        const tick = handler;
        handler = /** @this {unknown} @param {unknown[]} a */ function (...a) {
          polling += 1;
          try {
            return tick.apply(this, a);
          } finally {
            polling -= 1;
          }
        };
      }
      const id = native.setInterval.call(g, handler, delay, ...args);
      if ((Number(delay) || 0) <= MOTION_TIMER_MS) motion.timers.add(id);
      return id;
    },
  }.setInterval, native.setInterval);

  g.clearInterval = disguise({
    /** @param {number=} id */
    clearInterval(id) {
      if (id !== undefined) motion.timers.delete(id);
      return native.clearInterval.call(g, id);
    },
  }.clearInterval, native.clearInterval);

  if (typeof native.requestAnimationFrame === "function") {
    g.requestAnimationFrame = disguise({
      /** @param {FrameRequestCallback} callback */
      requestAnimationFrame(callback) {
        if (typeof callback !== "function") return native.requestAnimationFrame.call(g, callback);
        // Frame callbacks share the timers' generations: a render the action asked for is
        // waited for, an animation loop (a callback that asks for the next frame) only twice.
        const mine = generation + 1;
        const now = performance.now();
        const work = generation <= MAX_GENERATION ? { start: now, until: now + FRAME_MS } : null;
        /** @type {number} */
        const id = native.requestAnimationFrame.call(g, /** @this {unknown} @param {number} time */ function (time) {
          motion.frames.delete(id);
          if (work) {
            frames.delete(id);
            pending.delete(work);
          }
          const outer = generation;
          generation = mine;
          try {
            return callback.call(this, time);
          } finally {
            generation = outer;
          }
        });
        if (work) {
          track(work);
          frames.set(id, work);
        }
        motion.frames.add(id);
        return id;
      },
    }.requestAnimationFrame, native.requestAnimationFrame);

    g.cancelAnimationFrame = disguise({
      /** @param {number} id */
      cancelAnimationFrame(id) {
        motion.frames.delete(id);
        const work = frames.get(id);
        if (work) {
          frames.delete(id);
          pending.delete(work);
        }
        return native.cancelAnimationFrame.call(g, id);
      },
    }.cancelAnimationFrame, native.cancelAnimationFrame);
  }

  /** Note a request from now until a little after it is answered. */
  function request() {
    const now = performance.now();
    const work = { start: now, until: now + REQUEST_MS };
    track(work);
    // A loop (an interval, a timer chain) polling the server sends on its own, whatever the agent does.
    if (!polling && generation <= MAX_GENERATION) lastSent = now;
    return () => {
      work.until = Math.min(work.until, performance.now() + ANSWERED_TAIL_MS);
    };
  }

  /** Add pending work, forgetting what no longer matters so the set stays small. @param {{start: number, until: number}} work */
  function track(work) {
    if (pending.size > 64) {
      const now = performance.now();
      for (const old of pending) if (old.until <= now) pending.delete(old);
    }
    pending.add(work);
  }

  if (typeof native.fetch === "function") {
    g.fetch = disguise({
      /** @param {Parameters<typeof fetch>} args */
      fetch(...args) {
        const done = request();
        const answer = native.fetch.apply(g, args);
        // The body's own read is the page's next step: the effect follows the promise's callbacks.
        answer.then(done, done);
        return answer;
      },
    }.fetch, native.fetch);
  }

  XMLHttpRequest.prototype.send = disguise({
    /** @this {XMLHttpRequest} @param {Document|XMLHttpRequestBodyInit|null=} body */
    send(body) {
      const done = request();
      this.addEventListener("loadend", done, { once: true });
      return native.send.call(this, body);
    },
  }.send, native.send);

  /**
   * A navigation the page was asked for (a form submitted, a link followed) is pending work until
   * the document goes: the browser may report the navigation's start only after the page looked
   * quiet, and settle would then stop on the old page. Once it starts, settle follows it; a page
   * that handles the event itself (preventDefault: a single-page app's router) releases it at once.
   * @param {Event} e
   */
  function leaving(e) {
    const now = performance.now();
    const work = { start: now, until: now + REQUEST_MS };
    track(work);
    native.setTimeout.call(g, () => {
      if (e.defaultPrevented) pending.delete(work);
    }, 0);
  }

  /** Whether a link or form target opens in this same frame. @param {string} target */
  const opensHere = (target) => !target || target === "_self";

  g.addEventListener("submit", (/** @type {Event} */ e) => {
    lastSent = performance.now();
    if (e.target instanceof HTMLFormElement && opensHere(e.target.target)) leaving(e);
  }, true);

  g.addEventListener("click", (/** @type {MouseEvent} */ e) => {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return; // a new tab or window, or a download
    const link = e.composedPath().find((n) => n instanceof HTMLAnchorElement && n.hasAttribute("href"));
    if (!(link instanceof HTMLAnchorElement) || !opensHere(link.target) || link.hasAttribute("download")) return;
    if (link.protocol === "javascript:") return;
    if (link.hash && link.href.split("#")[0] === location.href.split("#")[0]) return; // a jump within this page
    leaving(e);
  }, true);

  document.addEventListener(BUSY, (/** @type {Event} */ e) => {
    const since = Number(/** @type {CustomEvent} */ (e).detail);
    if (!Number.isFinite(since)) return;
    const now = performance.now();
    for (const work of pending) {
      if (work.start >= since && now < work.until) {
        e.preventDefault();
        return;
      }
    }
  });
  document.addEventListener(SENT, (/** @type {Event} */ e) => {
    if (lastSent >= Number(/** @type {CustomEvent} */ (e).detail)) e.preventDefault();
  });
  /** Frames whose document has loaded (their load event, seen from here since document_start). @type {WeakSet<EventTarget>} */
  const loadedFrames = new WeakSet();
  g.addEventListener("load", (/** @type {Event} */ e) => {
    if (e.target instanceof HTMLIFrameElement || e.target instanceof HTMLFrameElement) loadedFrames.add(e.target);
  }, true);
  /** Drawn where a person could see it: rendered, with a box. @param {Element} el */
  const seen = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && (typeof el.checkVisibility !== "function" || el.checkVisibility({ visibilityProperty: true }));
  };
  document.addEventListener(LOAD_HELD, (/** @type {Event} */ e) => {
    const frames = [...document.querySelectorAll("iframe, frame")].some((f) => !loadedFrames.has(f) && seen(f));
    const images = !frames && [...document.images].some((i) => !i.complete && i.loading !== "lazy" && seen(i));
    if (frames || images) e.preventDefault();
  });
  document.addEventListener(HERE, (/** @type {Event} */ e) => e.preventDefault());
  document.addEventListener(MOTION_FRAMES, (/** @type {Event} */ e) => { if (motion.frames.size) e.preventDefault(); });
  document.addEventListener(MOTION_TIMERS, (/** @type {Event} */ e) => { if (motion.timers.size) e.preventDefault(); });
})();
