// @ts-check
/**
 * A refcounted keepalive for long turns: while at least one holder exists, an offscreen
 * document (offscreen/keepalive.html) pings the worker so Chrome does not stop it as idle.
 * The refcount lives in this worker only; a worker that starts (after a crash, a stop or an
 * extension reload) holds nothing, so it closes any document a previous worker left behind.
 */

const DOCUMENT_PATH = "offscreen/keepalive.html";

let holders = 0;
/** Serialises create/close so an acquire racing a release never leaves the wrong state. */
let queue = Promise.resolve();

/** @param {() => Promise<void>} step */
function enqueue(step) {
  const next = queue.then(step, step);
  queue = next.catch((e) => console.warn("waymark keepalive:", e));
  return queue;
}

async function hasDocument() {
  const contexts = await chrome.runtime.getContexts({
    contextTypes: [chrome.runtime.ContextType.OFFSCREEN_DOCUMENT],
    documentUrls: [chrome.runtime.getURL(DOCUMENT_PATH)],
  });
  return contexts.length > 0;
}

async function sync() {
  const exists = await hasDocument();
  if (holders > 0 && !exists) {
    await chrome.offscreen.createDocument({
      url: DOCUMENT_PATH,
      reasons: [chrome.offscreen.Reason.WORKERS],
      justification: "Keeps Waymark's service worker alive while a chat answer or an agent run is in progress.",
    });
  } else if (holders === 0 && exists) {
    await chrome.offscreen.closeDocument();
  }
}

/**
 * Hold the keepalive until the returned function is called (calling it twice is harmless).
 * @returns {Promise<() => Promise<void>>}
 */
export async function acquireKeepalive() {
  holders += 1;
  await enqueue(sync);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    holders -= 1;
    await enqueue(sync);
  };
}

/** @returns {Promise<{holders: number, document: boolean}>} for tests and diagnostics */
export async function keepaliveState() {
  await queue;
  return { holders, document: await hasDocument() };
}

/** Answer the document's pings, and close a document a previous worker left behind. */
export function registerKeepalive() {
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== "keepalive") return;
    port.onMessage.addListener(() => {
      port.postMessage({ kind: "pong", wanted: holders > 0 });
      if (holders === 0) void enqueue(sync);
    });
  });
  void enqueue(sync);
}
