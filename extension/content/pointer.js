// @ts-check
/**
 * Per-frame half of drag, right_click and the pointer at screenshot coordinates (classic content
 * script, after actions.js, whose helpers it uses through core.pointer): what is at a point of
 * this frame (the element, the refs whose boxes cover it, or an iframe to look into), the
 * synthetic forms of the pointer actions, whether a trusted press and move started an HTML5
 * drag, and which scroller a trusted wheel moved.
 */
(() => {
  const g = /** @type {import("../shared/content_types.js").ContentGlobal} */ (globalThis);
  // content/core.js runs first in every frame; the check below still guards a frame without it.
  const core = /** @type {import("../shared/content_types.js").ContentCore} */ (g.__waymark);
  const KIND = /** @type {typeof import("../shared/actions.js").KIND} */ (g.__waymarkKinds);
  if (!core || !core.pointer || core.pointerLoaded) return;
  core.pointerLoaded = true;
  const { ActError, resolve, describe, deepElementFromPoint, composedParent, syntheticClick, scrollableFrom } = core.pointer;

  /** @param {number} x @param {number} y */
  function inViewport(x, y) {
    return x >= 0 && y >= 0 && x < innerWidth && y < innerHeight;
  }

  /**
   * What is at a point of this frame's viewport: a short description of the element, the local
   * refs (already given, never new ones) of it and its ancestors whose boxes cover the point,
   * innermost first, and the content box of an iframe when the point falls on one.
   * @param {{x: number, y: number}} msg
   */
  function hitPoint(msg) {
    if (!inViewport(msg.x, msg.y)) return { outside: true, width: innerWidth, height: innerHeight, docId: core.docId };
    const hit = deepElementFromPoint(msg.x, msg.y);
    /** @type {number[]} */
    const refs = [];
    for (let n = /** @type {Node|null} */ (hit); n; n = composedParent(n)) {
      if (!(n instanceof Element)) continue;
      const ref = core.refIfAny(n);
      if (ref === undefined) continue;
      const r = n.getBoundingClientRect();
      if (msg.x >= r.left && msg.x <= r.right && msg.y >= r.top && msg.y <= r.bottom) refs.push(ref);
    }
    /** @type {number[]|null} */
    let frameBox = null;
    if (hit && (hit.localName === "iframe" || hit.localName === "frame")) {
      const r = hit.getBoundingClientRect();
      frameBox = [r.x + hit.clientLeft, r.y + hit.clientTop, hit.clientWidth, hit.clientHeight];
    }
    return { outside: false, docId: core.docId, refs, element: hit ? describe(hit) : "nothing", frameBox, width: innerWidth, height: innerHeight };
  }

  /**
   * A pointer action without the debugger, on what is at a point of this frame (or on the ref's
   * element, when the service worker already checked it is there): synthetic events, untrusted.
   * @param {{x: number, y: number, localRef?: number, action: {type: string}}} msg
   */
  function performAt(msg) {
    const el = msg.localRef ? resolve(msg.localRef) : deepElementFromPoint(msg.x, msg.y);
    if (!el) throw new ActError("not_found", `there is no element at (${Math.round(msg.x)}, ${Math.round(msg.y)}) of this frame`);
    const base = { bubbles: true, cancelable: true, composed: true, clientX: msg.x, clientY: msg.y, view: window };
    switch (msg.action.type) {
      case "click_at": syntheticClick(el, msg.x, msg.y); break;
      case "double_click_at": syntheticClick(el, msg.x, msg.y, 2); break;
      case "move_to":
        el.dispatchEvent(new PointerEvent("pointerover", base));
        el.dispatchEvent(new MouseEvent("mouseover", base));
        el.dispatchEvent(new MouseEvent("mousemove", base));
        break;
      case "right_click":
        el.dispatchEvent(new PointerEvent("pointerdown", { ...base, button: 2, buttons: 2, pointerType: "mouse", isPrimary: true }));
        el.dispatchEvent(new MouseEvent("mousedown", { ...base, button: 2, buttons: 2 }));
        el.dispatchEvent(new MouseEvent("contextmenu", { ...base, button: 2, buttons: 2 }));
        el.dispatchEvent(new PointerEvent("pointerup", { ...base, button: 2, buttons: 0, pointerType: "mouse", isPrimary: true }));
        el.dispatchEvent(new MouseEvent("mouseup", { ...base, button: 2 }));
        break;
      default: throw new ActError("bad_action", `no synthetic form of ${msg.action.type}`);
    }
    return {};
  }

  /** The dragstart a trusted press and move fired in this frame, while watched. */
  /** @type {{event: DragEvent|null, listener: (ev: Event) => void}|null} */
  let watch = null;

  function stopWatching() {
    if (watch) window.removeEventListener("dragstart", watch.listener, { capture: true });
    const seen = watch;
    watch = null;
    return seen;
  }

  /** Watch for the dragstart of the drag about to be pressed (the page may cancel it). */
  function dragWatch() {
    stopWatching();
    /** @type {NonNullable<typeof watch>} */
    const state = { event: null, listener: (ev) => { state.event = state.event || /** @type {DragEvent} */ (ev); } };
    window.addEventListener("dragstart", state.listener, { capture: true });
    watch = state;
    return { watching: true };
  }

  /** Whether an HTML5 drag began (a dragstart the page did not cancel); ends the watch. */
  function dragStarted() {
    const seen = stopWatching();
    return { started: Boolean(seen?.event && !seen.event.defaultPrevented) };
  }

  /** How long a wheel's scroll may keep moving (smooth scrolling animates it) before it is read. */
  const WHEEL_SETTLE_MS = 1500;

  /** The scroll positions a wheel about to turn may change: the chain of scrollers under its point. */
  /** @type {{scroller: Element, before: [number, number]}[]|null} */
  let wheel = null;

  /** @param {Element} s @returns {[number, number]} */
  const position = (s) => [s.scrollLeft, s.scrollTop];

  /**
   * Before a trusted wheel at a point of this frame: note the scroll positions of the scrollers
   * under it (innermost first, the page last) and say how far the wheel turns by default (most
   * of the innermost scroller's size on the wheel's axis).
   * @param {{x: number, y: number, direction: string}} msg
   */
  function wheelBegin(msg) {
    const el = deepElementFromPoint(msg.x, msg.y);
    if (!el) throw new ActError("not_found", `there is no element at (${Math.round(msg.x)}, ${Math.round(msg.y)}) of this frame`);
    const vertical = msg.direction === "up" || msg.direction === "down";
    const page = document.scrollingElement || document.documentElement;
    /** @type {Element[]} */
    const chain = [];
    for (let s = scrollableFrom(el, vertical); s; s = scrollableFrom(composedParent(s) || page, vertical)) {
      if (chain.includes(s)) break;
      chain.push(s);
    }
    chain.push(page);
    wheel = chain.map((scroller) => ({ scroller, before: position(scroller) }));
    const first = chain[0];
    const size = first === page ? (vertical ? innerHeight : innerWidth) : vertical ? first.clientHeight : first.clientWidth;
    return { amount: Math.round(size * 0.8) };
  }

  /**
   * After the wheel: once the scrollers stop moving, which one scrolled and by how much.
   * @returns {Promise<{scrolled: number[], at_edge: boolean, target: string}>}
   */
  async function wheelEnd() {
    const watched = wheel || [];
    wheel = null;
    const page = document.scrollingElement || document.documentElement;
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(null)));
    const positions = () => watched.map((w) => position(w.scroller).join(",")).join(";");
    const until = performance.now() + WHEEL_SETTLE_MS;
    let last = positions();
    let still = 0;
    // Moving, or not yet started: the wheel is done when three frames in a row show no change.
    while (still < 3 && performance.now() < until) {
      await frame();
      const now = positions();
      still = now === last ? still + 1 : 0;
      last = now;
    }
    for (const w of watched) {
      const [x, y] = position(w.scroller);
      const moved = [x - w.before[0], y - w.before[1]];
      if (moved[0] || moved[1]) return { scrolled: moved, at_edge: false, target: w.scroller === page ? "page" : describe(w.scroller) };
    }
    const first = watched[0]?.scroller;
    return { scrolled: [0, 0], at_edge: true, target: !first || first === page ? "page" : describe(first) };
  }

  core.handle(KIND.ACT_HIT_POINT, hitPoint);
  core.handle(KIND.ACT_WHEEL_BEGIN, wheelBegin);
  core.handle(KIND.ACT_WHEEL_END, wheelEnd);
  core.handle(KIND.ACT_POINT_PERFORM, performAt);
  core.handle(KIND.ACT_DRAG_WATCH, dragWatch);
  core.handle(KIND.ACT_DRAG_STARTED, dragStarted);
})();
