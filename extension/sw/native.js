// @ts-check
/**
 * The native port to the host: handshake, reconnect with backoff, chunk reassembly,
 * host requests answered by registered handlers, and calls to host methods.
 */
import { errorData, errorMessage } from "../shared/errors.js";
import { HOST_NAME, PROTOCOL_VERSION } from "../shared/protocol.js";

/** @typedef {import("../shared/protocol_types.js").InboundMessage} InboundMessage */
/** @typedef {import("../shared/protocol_types.js").OutboundMessage} OutboundMessage */
/** @typedef {import("../shared/protocol_types.js").BrowserRequest} BrowserRequest */
/** @typedef {import("../shared/protocol_types.js").Chunk} Chunk */
/** @typedef {import("../shared/protocol_types.js").Call} Call */
/** @typedef {import("../shared/protocol_types.js").Ping} Ping */
/** @typedef {import("../shared/protocol_types.js").Result} Result */
/** @typedef {import("../shared/protocol_types.js").ErrorInfo} ErrorInfo */
/** The host's answer to a call or a ping. @typedef {import("../shared/protocol_types.js").Reply|import("../shared/protocol_types.js").ErrorReply|import("../shared/protocol_types.js").Pong} Answer */

/**
 * @typedef {Object} ConnectionState
 * @property {"connecting"|"connected"|"disconnected"} status
 * @property {string|null} hostVersion
 * @property {number} protocol
 * @property {number} connects  successful handshakes since the worker started
 * @property {ErrorInfo|null} error  why the last connection failed, with a stable code
 * @property {number|null} retryInMs
 */

/** @typedef {(params: Record<string, unknown>) => Promise<Record<string, unknown>>} RequestHandler */
/** @typedef {{onNotify?: (name: string, data: Record<string, unknown>) => void, signal?: AbortSignal}} CallOptions */

const BACKOFF_START_MS = 250;
const BACKOFF_MAX_MS = 30000;

/** A typed failure with a stable code, thrown by request handlers. */
export class WaymarkError extends Error {
  /** @param {string} code @param {string} message @param {Record<string, unknown>|null=} data */
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/**
 * Map Chrome's disconnect reasons to codes the side panel can act on.
 * @param {string} message
 * @returns {ErrorInfo}
 */
export function classifyDisconnect(message) {
  if (/not found/i.test(message)) return { code: "host_not_installed", message };
  if (/forbidden/i.test(message)) return { code: "host_forbidden", message };
  if (/has exited/i.test(message)) return { code: "host_exited", message };
  return { code: "host_disconnected", message };
}

export class NativeChannel {
  constructor() {
    /** @type {chrome.runtime.Port|null} */
    this.port = null;
    /** @type {ConnectionState} */
    this.state = { status: "disconnected", hostVersion: null, protocol: PROTOCOL_VERSION, connects: 0, error: null, retryInMs: null };
    /** @type {Map<string, RequestHandler>} */
    this.handlers = new Map();
    /** @type {Map<string, {resolve: (m: Answer) => void, reject: (e: Error) => void, onNotify?: CallOptions["onNotify"]}>} */
    this.calls = new Map();
    /** @type {Map<string, {total: number, parts: Uint8Array[]}>} */
    this.chunks = new Map();
    /** @type {Set<(state: ConnectionState) => void>} */
    this.listeners = new Set();
    this.backoffMs = BACKOFF_START_MS;
    this.seq = 0;
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.retryTimer = null;
  }

  /** @param {string} method @param {RequestHandler} handler */
  handle(method, handler) {
    this.handlers.set(method, handler);
  }

  /** @param {(state: ConnectionState) => void} listener @returns {() => void} */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** @param {Partial<ConnectionState>} patch */
  setState(patch) {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener(this.state);
  }

  connect() {
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    if (this.port) return;
    this.setState({ status: "connecting", retryInMs: null });
    let port;
    try {
      port = chrome.runtime.connectNative(HOST_NAME);
    } catch (e) {
      this.onDisconnect(String(e));
      return;
    }
    this.port = port;
    port.onMessage.addListener((/** @type {OutboundMessage} */ m) => this.onMessage(m));
    port.onDisconnect.addListener(() => {
      if (this.port !== port) return;
      this.port = null;
      this.onDisconnect(chrome.runtime.lastError?.message || "the host closed the connection");
    });
    const hello = { v: PROTOCOL_VERSION, type: "hello", id: this.nextId("hello"), extension_version: chrome.runtime.getManifest().version, protocol: PROTOCOL_VERSION };
    // "file_access": the user (or Load unpacked) let the extension read file: URLs, which
    // `waymark doctor` and the panel's diagnostics warn of.
    void chrome.extension.isAllowedFileSchemeAccess().catch(() => false).then((files) => {
      if (this.port === port) port.postMessage({ ...hello, capabilities: ["chunks", ...(files ? ["file_access"] : []), ...this.handlers.keys()] });
    });
  }

  /** Drop the port on purpose (tests, settings changes); reconnects with backoff. */
  disconnect() {
    const port = this.port;
    this.port = null;
    port?.disconnect();
    this.onDisconnect("disconnected by the extension");
  }

  /** @param {string} reason */
  onDisconnect(reason) {
    const error = classifyDisconnect(reason);
    for (const [id, call] of this.calls) {
      call.reject(new WaymarkError(error.code, `host connection lost: ${reason}`));
      this.calls.delete(id);
    }
    this.chunks.clear();
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    this.setState({ status: "disconnected", hostVersion: null, error, retryInMs: delay });
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** @param {string} prefix */
  nextId(prefix) {
    this.seq += 1;
    return `${prefix}${this.seq}`;
  }

  /** @param {InboundMessage} message */
  post(message) {
    if (!this.port) throw new WaymarkError("host_disconnected", "the host is not connected");
    this.port.postMessage(message);
  }

  /** @param {OutboundMessage} message */
  onMessage(message) {
    if (message.type === "chunk") {
      const whole = this.reassemble(message);
      if (whole) this.onMessage(whole);
      return;
    }
    switch (message.type) {
      case "hello":
        this.backoffMs = BACKOFF_START_MS;
        this.setState({ status: "connected", hostVersion: message.host_version, protocol: message.protocol ?? PROTOCOL_VERSION, connects: this.state.connects + 1, error: null });
        return;
      case "request":
        void this.answer(message);
        return;
      case "reply":
      case "notify":
      case "pong":
      case "error": {
        const call = message.id ? this.calls.get(message.id) : undefined;
        if (!call) return;
        if (message.type === "notify") {
          call.onNotify?.(message.name, message.data || {});
          return;
        }
        this.calls.delete(/** @type {string} */ (message.id));
        call.resolve(message);
        return;
      }
    }
  }

  /**
   * Collect one chunk; returns the whole message once the last piece arrived.
   * @param {Chunk} message
   * @returns {OutboundMessage|null}
   */
  reassemble(message) {
    const entry = this.chunks.get(message.chunk_id) || { total: message.total, parts: [] };
    const binary = atob(message.data);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    entry.parts[message.index] = bytes;
    this.chunks.set(message.chunk_id, entry);
    if (entry.parts.filter(Boolean).length < entry.total) return null;
    this.chunks.delete(message.chunk_id);
    const size = entry.parts.reduce((n, p) => n + p.length, 0);
    const all = new Uint8Array(size);
    let offset = 0;
    for (const part of entry.parts) {
      all.set(part, offset);
      offset += part.length;
    }
    return /** @type {OutboundMessage} */ (JSON.parse(new TextDecoder().decode(all)));
  }

  /** @param {BrowserRequest} request */
  async answer(request) {
    const handler = this.handlers.get(request.method);
    /** @type {Result} */
    let result;
    if (!handler) {
      result = { v: 1, type: "result", id: request.id, ok: false, error: { code: "unknown_method", message: `the extension has no method ${request.method}` } };
    } else {
      try {
        const data = await handler(request.params || {});
        result = { v: 1, type: "result", id: request.id, ok: true, data };
      } catch (e) {
        const code = e instanceof WaymarkError ? e.code : "extension_error";
        result = { v: 1, type: "result", id: request.id, ok: false, error: { code, message: errorMessage(e) }, data: errorData(e) };
      }
    }
    try {
      this.post(result);
    } catch (e) {
      console.warn("waymark: could not send a result", e);
    }
  }

  /**
   * Send a message that expects one answer (a `reply` to a call, a `pong` to a ping).
   * @param {Call|Ping} message @param {CallOptions=} options
   * @returns {Promise<Answer>}
   */
  exchange(message, options = {}) {
    const id = /** @type {string} */ (message.id);
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject, onNotify: options.onNotify });
      try {
        this.post(message);
      } catch (e) {
        this.calls.delete(id);
        reject(e);
        return;
      }
      // The host answers a cancelled call with a `cancelled` reply, which settles this promise.
      options.signal?.addEventListener("abort", () => {
        if (this.calls.has(id) && this.port) this.post({ v: PROTOCOL_VERSION, type: "cancel", id });
      }, { once: true });
    });
  }

  /**
   * Call a host method; resolves with its data or rejects with a WaymarkError.
   * @param {string} method @param {Record<string, unknown>} params @param {CallOptions=} options
   * @returns {Promise<Record<string, unknown>>}
   */
  async call(method, params = {}, options = {}) {
    const reply = await this.exchange({ v: PROTOCOL_VERSION, type: "call", id: this.nextId("x"), method, params }, options);
    if (reply.type === "error") throw new WaymarkError(reply.code, reply.message);
    if (reply.type !== "reply") throw new WaymarkError("bad_reply", `the host answered ${method} with a ${reply.type}`);
    if (!reply.ok) throw new WaymarkError(reply.error?.code || "error", reply.error?.message || "call failed", reply.data);
    return reply.data || {};
  }

  /** @returns {Promise<number>} round-trip milliseconds of a ping */
  async ping() {
    const start = performance.now();
    await this.exchange({ v: PROTOCOL_VERSION, type: "ping", id: this.nextId("p") });
    return performance.now() - start;
  }
}
