// @ts-check
/**
 * Which elements a page made clickable with script listeners, and which it made HTML5 drop
 * zones (a `drop` listener), for the perception walker.
 *
 * Runs in the page's own world (manifest content script, world MAIN) at document_start in
 * every frame, before the page's scripts: it wraps `addEventListener` and the `onclick`-style
 * properties, and gives each element that gets a pointer listener a listener of its own for a
 * query event. The walker (isolated world) dispatches that event on an element; it comes back
 * cancelled when the element listens. Nothing of the page's is read by the walker: a page can at
 * most make its own elements look clickable, which is what a listener does anyway. Listeners on
 * the document, body or window (delegation) mark nothing, so a page that handles every click
 * at its root does not make every element look clickable.
 */
(() => {
  const QUERY = "__waymark_listens";
  const QUERY_ANY = "__waymark_listens_any";
  // No mark on the page's global (a page would see Waymark there): the manifest runs this once
  // per document, and the service worker injects only the isolated-world files again.

  const POINTER = new Set(["click", "dblclick", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend"]);
  /** A `drop` listener makes an HTML5 drop zone: a place to drag to, not a control, asked about apart. */
  const DROP = "drop";
  const QUERY_DROP = "__waymark_drops";
  /** @type {WeakSet<Element>} */
  const drops = new WeakSet();
  const add = EventTarget.prototype.addEventListener;
  /** @type {WeakSet<Element>} */
  const marked = new WeakSet();
  let any = false;
  const cancel = (/** @type {Event} */ e) => e.preventDefault();

  /** @param {unknown} target @param {string} type */
  function note(target, type) {
    if (type === DROP && target instanceof Element && !drops.has(target) && target !== document.documentElement && target !== document.body) {
      drops.add(target);
      any = true;
      add.call(target, QUERY_DROP, cancel);
      return;
    }
    if (!POINTER.has(type) || !(target instanceof Element) || marked.has(target)) return;
    if (target === document.documentElement || target === document.body) return;
    marked.add(target);
    any = true;
    add.call(target, QUERY, cancel);
  }

  const wrapped = {
    /** @this {EventTarget} @param {string} type @param {EventListenerOrEventListenerObject|null} listener @param {boolean|AddEventListenerOptions=} options */
    addEventListener(type, listener, options) {
      if (listener) note(this, String(type));
      return add.call(this, type, listener, options);
    },
  }.addEventListener;
  // Keep the native face (name, length, toString) so pages that check it see nothing new.
  Object.defineProperty(wrapped, "toString", { value: () => add.toString() });
  EventTarget.prototype.addEventListener = wrapped;

  for (const kind of POINTER) {
    const prop = `on${kind}`;
    const desc = Object.getOwnPropertyDescriptor(HTMLElement.prototype, prop);
    if (!desc || !desc.set || !desc.get) continue;
    const set = desc.set;
    Object.defineProperty(HTMLElement.prototype, prop, {
      ...desc,
      set(/** @type {unknown} */ value) {
        if (value) note(this, kind);
        set.call(this, value);
      },
    });
  }

  // One question per snapshot before any per-element ones: pages with no such listener cost nothing.
  add.call(document, QUERY_ANY, (/** @type {Event} */ e) => {
    if (any) e.preventDefault();
  });
})();
