// @ts-check
/**
 * Names of elements from earlier snapshots of this document, reused while nothing they are read
 * from has changed (classic content script, isolated world, after core.js, before snapshot.js).
 *
 * Computing a name reads the element's subtree with styles and ::before/::after content: on a
 * large page that is about a third of the walk. A warm snapshot (the page after a click, the next
 * step of a task) asks again for names of elements that did not change. The walker keeps only
 * names read from the element's own attributes and subtree (not labels or aria-labelledby
 * targets elsewhere), and this cache drops them when a mutation could change them: any change
 * inside the element or to the element itself, a style-carrying attribute (class, style, hidden,
 * dir, lang) on an ancestor, a stylesheet added or removed, typing into a control inside it, or
 * a resized viewport (media queries). Shadow roots the walker enters are watched like the document.
 */
(() => {
  const g = /** @type {import("../shared/content_types.js").ContentGlobal} */ (globalThis);
  const core = g.__waymark;
  if (!core || core.names) return;

  /** Attributes whose change can restyle a whole subtree. */
  const STYLE_ATTRIBUTES = new Set(["class", "style", "hidden", "dir", "lang"]);
  /** Past this many subtree restyles in one batch, dropping everything is cheaper than sorting out what stays. */
  const SUBTREE_LIMIT = 8;

  /** @type {Map<Element, string>} */
  const names = new Map();
  /** @type {WeakSet<Node>} */
  const watched = new WeakSet();
  let viewport = "";

  /** The parent across shadow boundaries (a shadow root's host). @param {Node} n @returns {Node|null} */
  function composedParent(n) {
    return n.parentNode || /** @type {ShadowRoot} */ (n).host || null;
  }

  /** Drop the cached names of `node` and every element around it. @param {Node|null} node */
  function dropAround(node) {
    for (let n = node; n; n = composedParent(n)) names.delete(/** @type {Element} */ (n));
  }

  /** Drop the cached names of elements inside `node`, through shadow roots. @param {Node} node */
  function dropInside(node) {
    for (const el of names.keys()) {
      for (let n = composedParent(el); n; n = composedParent(n)) {
        if (n === node) {
          names.delete(el);
          break;
        }
      }
    }
  }

  /** @param {Node} n */
  const isStylesheet = (n) => n.nodeName === "STYLE" || n.nodeName === "LINK" || n.nodeName === "style" || n.nodeName === "link";

  /** @param {MutationRecord[]} records */
  function invalidate(records) {
    let restyles = 0;
    for (const r of records) {
      if (!names.size) return;
      if (r.type === "childList" && (Array.from(r.addedNodes).some(isStylesheet) || Array.from(r.removedNodes).some(isStylesheet))) {
        names.clear();
        return;
      }
      if (r.type === "attributes" && r.attributeName && STYLE_ATTRIBUTES.has(r.attributeName) && /** @type {Element} */ (r.target).firstElementChild) {
        if (++restyles > SUBTREE_LIMIT) {
          names.clear();
          return;
        }
        dropInside(r.target);
      }
      dropAround(r.target);
    }
  }

  const observer = new MutationObserver(invalidate);
  const options = { subtree: true, childList: true, attributes: true, characterData: true };

  // A control's typed value is no mutation, but a name that embeds the control says it.
  for (const type of ["input", "change"]) {
    window.addEventListener(type, (e) => {
      for (const n of e.composedPath()) if (n instanceof Element) names.delete(n);
    }, { capture: true });
  }

  core.names = {
    /** Bring the cache up to date before a walk: apply pending mutations, and start over when the viewport was resized. */
    begin() {
      invalidate(observer.takeRecords());
      const now = `${window.innerWidth}x${window.innerHeight}`;
      if (now !== viewport) names.clear();
      viewport = now;
      if (document.documentElement) this.watch(document);
    },
    /** Watch a document or shadow root for changes that invalidate names read inside it. @param {Document|ShadowRoot} root */
    watch(root) {
      if (watched.has(root)) return;
      watched.add(root);
      observer.observe(root, options);
    },
    /** @param {Element} el @returns {string|undefined} */
    get(el) {
      return names.get(el);
    },
    /** @param {Element} el @param {string} name */
    set(el, name) {
      names.set(el, name);
    },
    /** Forget elements no longer in the document (the registry's sweep). */
    sweep() {
      for (const el of names.keys()) if (!el.isConnected) names.delete(el);
    },
    /** @returns {number} cached names (tests and the memory benchmark read this) */
    size() {
      return names.size;
    },
  };
})();
