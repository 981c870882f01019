// @ts-check
/**
 * The panel's line to the host, through the service worker's "panel" port. Calls stream their
 * notifications and settle with the reply. If the worker stops mid-call (Chrome stopped it,
 * it crashed, the extension was reloaded), every pending call settles at once with
 * `worker_restarted` and the client reconnects, which wakes a fresh worker: nothing hangs.
 */

/** @typedef {import("../sw/native.js").ConnectionState} ConnectionState */
/** @typedef {import("../sw/panel.js").PanelMessage} PanelMessage */

/** A failed host call with the host's (or the worker's) stable error code. */
export class HostCallError extends Error {
  /** @param {string} code @param {string} message @param {Record<string, unknown>|null=} data */
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/**
 * @typedef {Object} CallHandle
 * @property {string} id
 * @property {Promise<Record<string, unknown>>} done  resolves with the reply's data
 * @property {() => void} cancel  ask the host to stop; `done` then rejects with code "cancelled"
 */

/**
 * @typedef {Object} Pending
 * @property {(data: Record<string, unknown>) => void} resolve
 * @property {(e: Error) => void} reject
 * @property {((name: string, data: Record<string, unknown>) => void)=} onNotify
 */

const RECONNECT_MS = 150;

export class HostClient {
  constructor() {
    /** @type {chrome.runtime.Port|null} */
    this.port = null;
    /** @type {Map<string, Pending>} */
    this.pending = new Map();
    /** @type {ConnectionState|null} */
    this.state = null;
    /** @type {Set<(state: ConnectionState) => void>} */
    this.stateListeners = new Set();
    /** Unique per panel instance, so call ids never collide between panels. */
    this.prefix = `panel-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}-`;
    this.seq = 0;
    this.connect();
  }

  connect() {
    const port = chrome.runtime.connect({ name: "panel" });
    this.port = port;
    port.onMessage.addListener((msg) => this.onMessage(msg));
    port.onDisconnect.addListener(() => {
      if (this.port !== port) return;
      this.port = null;
      const lost = [...this.pending.values()];
      this.pending.clear();
      for (const call of lost) call.reject(new HostCallError("worker_restarted", "the extension's background worker stopped during this request"));
      setTimeout(() => this.connect(), RECONNECT_MS);
    });
  }

  /** @param {PanelMessage} msg */
  onMessage(msg) {
    if (msg.kind === "state") {
      this.state = msg.state;
      for (const listener of this.stateListeners) listener(msg.state);
    } else if (msg.kind === "notify") {
      this.pending.get(msg.id)?.onNotify?.(msg.name, msg.data || {});
    } else if (msg.kind === "reply") {
      const call = this.pending.get(msg.id);
      if (!call) return;
      this.pending.delete(msg.id);
      if (msg.ok) call.resolve(msg.data);
      else call.reject(new HostCallError(msg.error?.code || "error", msg.error?.message || "the call failed", msg.data));
    }
  }

  /** @param {(state: ConnectionState) => void} listener */
  onState(listener) {
    this.stateListeners.add(listener);
    if (this.state) listener(this.state);
  }

  /**
   * Start a host call.
   * @param {string} method
   * @param {Record<string, unknown>=} params
   * @param {{onNotify?: (name: string, data: Record<string, unknown>) => void, turn?: boolean}=} options
   *   `turn`: a user-visible turn; the worker is kept alive for it and records it
   * @returns {CallHandle}
   */
  start(method, params = {}, options = {}) {
    this.seq += 1;
    const id = `${this.prefix}${this.seq}`;
    const done = new Promise((resolve, reject) => {
      if (!this.port) {
        reject(new HostCallError("worker_restarted", "the extension's background worker is restarting; try again"));
        return;
      }
      this.pending.set(id, { resolve, reject, onNotify: options.onNotify });
      this.port.postMessage({ kind: "call", id, method, params, turn: Boolean(options.turn) });
    });
    return { id, done, cancel: () => this.port?.postMessage({ kind: "cancel", id }) };
  }

  /**
   * A short call (settings, diagnostics): resolves with its data.
   * @param {string} method @param {Record<string, unknown>=} params
   */
  call(method, params = {}) {
    return this.start(method, params).done;
  }
}
