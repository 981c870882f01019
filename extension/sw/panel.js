// @ts-check
/**
 * Relay between side-panel pages and the host: a panel connects a runtime port named
 * "panel", receives connection-state updates, and makes host calls through the worker.
 */

/**
 * @typedef {{kind: "call", id: string, method: string, params?: Record<string, any>}
 *   | {kind: "cancel", id: string}
 *   | {kind: "state"}} PanelRequest
 */

/** @param {import("./native.js").NativeChannel} channel */
export function registerPanelRelay(channel) {
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== "panel") return;
    /** @type {Map<string, AbortController>} */
    const running = new Map();
    const unsubscribe = channel.subscribe((state) => port.postMessage({ kind: "state", state }));
    port.postMessage({ kind: "state", state: channel.state });
    port.onDisconnect.addListener(() => {
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
        try {
          const data = await channel.call(msg.method, msg.params || {}, {
            signal: controller.signal,
            onNotify: (name, data) => port.postMessage({ kind: "notify", id: msg.id, name, data }),
          });
          port.postMessage({ kind: "reply", id: msg.id, ok: true, data });
        } catch (e) {
          const err = /** @type {any} */ (e);
          port.postMessage({ kind: "reply", id: msg.id, ok: false, error: { code: err.code || "error", message: String(err.message || err) }, data: err.data ?? null });
        } finally {
          running.delete(msg.id);
        }
      }
    });
  });
}
