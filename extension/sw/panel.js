// @ts-check
/**
 * Relay between side-panel pages and the host: a panel connects a runtime port named
 * "panel", receives connection-state updates, and makes host calls through the worker.
 */
import { acquireKeepalive } from "./keepalive.js";

/**
 * A call with `turn: true` is a user-visible turn (a chat answer, an agent run): the worker is
 * kept alive for its duration. If the worker is stopped anyway, this port closes with it and
 * the panel ends or repeats the turn itself (sidepanel/host_client.js).
 * @typedef {{kind: "call", id: string, method: string, params?: Record<string, any>, turn?: boolean}
 *   | {kind: "cancel", id: string}
 *   | {kind: "state"}} PanelRequest
 */

/** @param {import("./native.js").NativeChannel} channel */
export function registerPanelRelay(channel) {
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== "panel") return;
    /** @type {Map<string, AbortController>} */
    const running = new Map();
    let open = true;
    /** A panel that went away mid-call must not turn the late reply into an exception. @param {any} msg */
    const send = (msg) => { if (open) port.postMessage(msg); };
    const unsubscribe = channel.subscribe((state) => send({ kind: "state", state }));
    port.postMessage({ kind: "state", state: channel.state });
    port.onDisconnect.addListener(() => {
      open = false;
      unsubscribe();
      for (const controller of running.values()) controller.abort();
    });
    port.onMessage.addListener(async (/** @type {PanelRequest} */ msg) => {
      if (msg.kind === "state") {
        port.postMessage({ kind: "state", state: channel.state });
      } else if (msg.kind === "cancel") {
        running.get(msg.id)?.abort();
      } else if (msg.kind === "call") {
        const controller = new AbortController();
        running.set(msg.id, controller);
        /** @type {(() => Promise<void>)|null} */
        let release = null;
        try {
          if (msg.turn) release = await acquireKeepalive();
          if (controller.signal.aborted) throw Object.assign(new Error(`${msg.method} was cancelled`), { code: "cancelled" });
          const data = await channel.call(msg.method, msg.params || {}, {
            signal: controller.signal,
            onNotify: (name, data) => send({ kind: "notify", id: msg.id, name, data }),
          });
          send({ kind: "reply", id: msg.id, ok: true, data });
        } catch (e) {
          const err = /** @type {any} */ (e);
          send({ kind: "reply", id: msg.id, ok: false, error: { code: err.code || "error", message: String(err.message || err) }, data: err.data ?? null });
        } finally {
          running.delete(msg.id);
          await release?.();
        }
      }
    });
  });
}
