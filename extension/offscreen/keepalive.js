// @ts-check
/**
 * The offscreen keepalive document: while a side-panel turn runs, it pings the service worker
 * over a runtime port so the worker is not stopped as idle. The worker owns the refcount and
 * closes this document when no turn holds it; a pong saying `wanted: false` (a worker that
 * restarted and holds nothing) makes it close itself, so it is never orphaned.
 */

/** Below the worker's 30 s idle timeout, with margin for a busy event loop. */
const PING_MS = 20000;

/** @type {chrome.runtime.Port|null} */
let port = null;

function connect() {
  const p = chrome.runtime.connect({ name: "keepalive" });
  port = p;
  p.onMessage.addListener((/** @type {{kind: string, wanted?: boolean}} */ msg) => {
    if (msg.kind === "pong" && msg.wanted === false) window.close();
  });
  p.onDisconnect.addListener(() => {
    if (port !== p) return;
    port = null;
    // The worker stopped: reconnecting wakes a fresh one, which says whether we are still wanted.
    setTimeout(connect, 500);
  });
  p.postMessage({ kind: "ping" });
}

connect();
setInterval(() => port?.postMessage({ kind: "ping" }), PING_MS);
