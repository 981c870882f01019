// @ts-check
/**
 * Content-script core, injected first into every frame (classic script, isolated world).
 * Idempotent: injecting it again into the same document is a no-op. Other content files
 * register message handlers on `globalThis.__waymark` with `handle(kind, fn)`.
 */
/** @typedef {import("../shared/content_types.js").ContentMessage} ContentMessage */
/** @typedef {import("../shared/content_types.js").ContentCore} ContentCore */
(() => {
  const g = /** @type {import("../shared/content_types.js").ContentGlobal} */ (globalThis);
  if (g.__waymark) return;

  /** @type {Map<string, (msg: ContentMessage) => unknown>} */
  const handlers = new Map();

  /**
   * Refs are stable for the life of an element: a WeakMap gives an element its number once;
   * a removed element's ref is stale and is never given to another element.
   */
  /** @type {WeakMap<Element, number>} */
  const refOf = new WeakMap();
  /** @type {Map<number, WeakRef<Element>>} */
  const elementOf = new Map();
  /** Refs dropped since the last `takeDropped()`, so the service worker's table can forget them too. */
  /** @type {number[]} */
  let dropped = [];
  let nextRef = 1;

  /** 128 random bits as hex: getRandomValues works on plain-http pages, where randomUUID is absent. */
  const randomId = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");

  /** @type {ContentCore} */
  const core = {
    /** A random identity of this document instance; a navigated frame gets a new one. */
    docId: randomId(),
    randomId,
    /** @param {Element} el @returns {number} */
    refFor(el) {
      let ref = refOf.get(el);
      if (ref === undefined) {
        ref = nextRef++;
        refOf.set(el, ref);
        elementOf.set(ref, new WeakRef(el));
      }
      return ref;
    },
    /**
     * The element's ref if it has one already (given by a snapshot or an error's evidence), never a new one.
     * @param {Element} el @returns {number|undefined}
     */
    refIfAny(el) {
      return refOf.get(el);
    },
    /**
     * The live element for a local ref, or null when it was removed (stale).
     * @param {number} ref
     * @returns {Element|null}
     */
    elementFor(ref) {
      const el = elementOf.get(ref)?.deref();
      if (!el || !el.isConnected) {
        if (elementOf.delete(ref)) dropped.push(ref);
        return null;
      }
      return el;
    },
    /** Drop registry entries of collected or detached elements (keeps the map from growing). */
    sweep() {
      for (const [ref, weak] of elementOf) {
        const el = weak.deref();
        if (!el || !el.isConnected) {
          elementOf.delete(ref);
          dropped.push(ref);
        }
      }
    },
    /** @returns {number[]} the refs dropped since the last call (each reported once) */
    takeDropped() {
      const out = dropped;
      dropped = [];
      return out;
    },
    /** @returns {number} live registry entries (the memory benchmark reads this) */
    registrySize() {
      return elementOf.size;
    },
    /**
     * This frame's index in its parent's `window.frames` (-1 for a top document): both the
     * snapshot and page-text stitching pair a child frame with its iframe by it.
     * @returns {number}
     */
    frameIndex() {
      const parent = window.parent;
      if (parent === window) return -1;
      try {
        for (let i = 0; i < parent.frames.length; i++) if (parent.frames[i] === window) return i;
      } catch {
        /* a frame being torn down */
      }
      return -1;
    },
    /**
     * The handler of one message kind; it declares the fields its kind carries (the service
     * worker, this extension's own code, is the only sender).
     * @template M @param {string} kind @param {(msg: M) => unknown} fn
     */
    handle(kind, fn) {
      handlers.set(kind, /** @type {(msg: ContentMessage) => unknown} */ (/** @type {unknown} */ (fn)));
    },
  };
  g.__waymark = core;

  chrome.runtime.onMessage.addListener((/** @type {ContentMessage|null} */ msg, _sender, sendResponse) => {
    if (!msg || typeof msg.kind !== "string" || !msg.kind.startsWith("wm:")) return false;
    if (msg.docId && msg.docId !== core.docId) {
      sendResponse({ ok: false, error: { code: "stale_ref", message: "the frame's document changed since the ref was issued" } });
      return false;
    }
    const fn = handlers.get(msg.kind);
    if (!fn) {
      sendResponse({ ok: false, error: { code: "unknown_kind", message: `no content handler for ${msg.kind}` } });
      return false;
    }
    Promise.resolve()
      .then(() => fn(msg))
      .then(
        (data) => sendResponse({ ok: true, data, docId: core.docId }),
        (/** @type {{code?: string, message?: string, data?: unknown}|null|undefined} */ e) =>
          sendResponse({ ok: false, error: { code: e?.code || "content_error", message: String(e?.message || e) }, data: e?.data ?? null }),
      );
    return true;
  });
})();
