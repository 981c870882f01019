// @ts-check
/**
 * Per-frame half of drag, right_click and the pointer at screenshot coordinates (classic content
 * script, after actions.js, whose helpers it uses through core.pointer): what is at a point of
 * this frame (the element, the refs whose boxes cover it, or an iframe to look into), the
 * synthetic forms of the pointer actions, and whether a trusted press and move started an
 * HTML5 drag.
 */
(() => {
  const g = /** @type {import("../shared/content_types.js").ContentGlobal} */ (globalThis);
  // content/core.js runs first in every frame; the check below still guards a frame without it.
  const core = /** @type {import("../shared/content_types.js").ContentCore} */ (g.__waymark);
  const KIND = /** @type {typeof import("../shared/actions.js").KIND} */ (g.__waymarkKinds);
  if (!core || !core.pointer || core.pointerLoaded) return;
  core.pointerLoaded = true;
  const { ActError, resolve, describe, deepElementFromPoint, composedParent, syntheticClick, scrollFrom } = core.pointer;

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
   * @param {{x: number, y: number, localRef?: number, action: {type: string, direction?: string, amount?: number|null}}} msg
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
      case "scroll_at": return scrollFrom(el, msg.action.direction || "down", msg.action.amount);
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

  core.handle(KIND.ACT_HIT_POINT, hitPoint);
  core.handle(KIND.ACT_POINT_PERFORM, performAt);
  core.handle(KIND.ACT_DRAG_WATCH, dragWatch);
  core.handle(KIND.ACT_DRAG_STARTED, dragStarted);
})();
