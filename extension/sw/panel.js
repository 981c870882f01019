// @ts-check
/**
 * Relay between side-panel pages and the host: a panel connects a runtime port named
 * "panel", receives connection-state updates, and makes host calls through the worker.
 */
import { errorCode, errorData, errorMessage } from "../shared/errors.js";
import { acquireKeepalive } from "./keepalive.js";

/**
 * A call with `turn: true` is a user-visible turn (a chat answer, an agent run): the worker is
 * kept alive for its duration. If the worker is stopped anyway, this port closes with it and
 * the panel ends or repeats the turn itself (sidepanel/host_client.js).
 * @typedef {{kind: "call", id: string, method: string, params?: Record<string, unknown>, turn?: boolean}
 *   | {kind: "cancel", id: string}
 *   | {kind: "state"}} PanelRequest
 *
 * What the worker sends a panel: the host connection's state, a call's notifications, its reply.
 * @typedef {{kind: "state", state: import("./native.js").ConnectionState}
 *   | {kind: "notify", id: string, name: string, data: Record<string, unknown>}
 *   | {kind: "reply", id: string, ok: true, data: Record<string, unknown>}
 *   | {kind: "reply", id: string, ok: false, error: import("../shared/protocol_types.js").ErrorInfo, data: Record<string, unknown>|null}} PanelMessage
 */

/** The extension's own pages that may speak for the user: the side panel (also when opened as a tab) and the offscreen document. */
const OWN_PAGES = ["/sidepanel/sidepanel.html", "/offscreen/keepalive.html"];

/**
 * Whether a port comes from one of this extension's own pages. Judged by `sender`, which the
 * browser fills in, never by what the port says: a content script shares the extension's id but
 * its `sender.url` is the web page it runs in, and a compromised renderer can run one.
 * @param {chrome.runtime.MessageSender|undefined} sender
 * @param {string} ownBase  this extension's base URL, chrome.runtime.getURL("")
 */
export function isOwnPage(sender, ownBase) {
  if (!sender?.url || sender.id !== new URL(ownBase).host) return false;
  let url;
  try {
    url = new URL(sender.url);
  } catch {
    return false;
  }
  return url.origin === new URL(ownBase).origin && OWN_PAGES.includes(url.pathname);
}

/** @param {import("./native.js").NativeChannel} channel */
export function registerPanelRelay(channel) {
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== "panel") return;
    if (!isOwnPage(port.sender, chrome.runtime.getURL(""))) {
      console.warn("Waymark: refused a panel connection from", port.sender?.url ? new URL(port.sender.url).origin : "an unknown sender");
      port.disconnect();
      return;
    }
    /** @type {Map<string, AbortController>} */
    const running = new Map();
    let open = true;
    /** A panel that went away mid-call must not turn the late reply into an exception. @param {PanelMessage} msg */
    const send = (msg) => { if (open) port.postMessage(msg); };
    const unsubscribe = channel.subscribe((state) => send({ kind: "state", state }));
    send({ kind: "state", state: channel.state });
    port.onDisconnect.addListener(() => {
      open = false;
      unsubscribe();
      for (const controller of running.values()) controller.abort();
    });
    port.onMessage.addListener(async (/** @type {PanelRequest} */ msg) => {
      if (msg.kind === "state") {
        send({ kind: "state", state: channel.state });
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
          send({ kind: "reply", id: msg.id, ok: false, error: { code: errorCode(e) || "error", message: errorMessage(e) }, data: errorData(e) });
        } finally {
          running.delete(msg.id);
          await release?.();
        }
      }
    });
  });
}
