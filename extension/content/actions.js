// @ts-check
/**
 * Per-frame half of dispatch (classic content script, after core.js): resolve a local ref,
 * scroll it into view, check it can be acted on (visible, enabled, editable, stable, reachable
 * by a pointer), and the synthetic fallbacks used when trusted CDP input is unavailable.
 * Also the DOM-mutation quiet window the service worker's settle waits for.
 */
(() => {
  const g = /** @type {import("../shared/content_types.js").ContentGlobal} */ (globalThis);
  // content/core.js runs first in every frame; the check below still guards a frame without it.
  const core = /** @type {import("../shared/content_types.js").ContentCore} */ (g.__waymark);
  const KIND = /** @type {typeof import("../shared/actions.js").KIND} */ (g.__waymarkKinds);
  if (!core || core.actionsLoaded) return;
  core.actionsLoaded = true;

  /** A typed failure: the service worker turns the code into the action's error. */
  class ActError extends Error {
    /** @param {string} code @param {string} message @param {Record<string, unknown>=} data */
    constructor(code, message, data) {
      super(message);
      this.code = code;
      this.data = data;
    }
  }

  const TEXT_INPUT_TYPES = new Set(["", "text", "search", "email", "url", "tel", "password", "number", "date", "datetime-local", "month", "week", "time"]);
  /** Inputs whose text is not typed but picked (segmented date and time fields): fill sets their value. */
  const PICKER_INPUT_TYPES = new Set(["date", "datetime-local", "month", "week", "time"]);
  /** @type {Record<string, string>} */
  const PICKER_EXAMPLES = { date: "2026-12-24", "datetime-local": "2026-12-24T18:30", month: "2026-12", week: "2026-W52", time: "18:30" };
  const CHECKABLE_ROLES = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);
  /** How long the box may keep moving before the action gives up. */
  const STABLE_TIMEOUT_MS = 1000;
  /** How long a box must hold while a script's short timer runs: activity.js counts timers up to this as possible steps of a motion. */
  const TIMER_STEP_MS = 100;

  /** @param {number} ref @returns {Element} */
  function resolve(ref) {
    const el = core.elementFor(ref);
    if (!el) throw new ActError("stale_ref", `ref ${ref} no longer exists in the page (it was removed or re-rendered)`);
    return el;
  }

  /** A short, safe description of an element for error messages (no values). */
  function describe(/** @type {Element} */ el) {
    const role = el.getAttribute("role");
    const label = (el.getAttribute("aria-label") || (/** @type {HTMLElement} */ (el).innerText || "")).trim().replace(/\s+/g, " ").slice(0, 60);
    return `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${role ? ` role=${role}` : ""}>${label ? ` "${label}"` : ""}`;
  }

  /** @param {Element} el */
  function isTextInput(el) {
    return el instanceof HTMLInputElement && TEXT_INPUT_TYPES.has(el.type);
  }

  /** @param {Element} el */
  function isEditable(el) {
    return isTextInput(el) || el instanceof HTMLTextAreaElement || (el instanceof HTMLElement && el.isContentEditable);
  }

  /** @param {Element} el */
  function isDisabled(el) {
    if (el.matches(":disabled")) return true;
    return el.closest('[aria-disabled="true"]') !== null;
  }

  /** @param {Element} el */
  function isReadonly(el) {
    if ((el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) && el.readOnly) return true;
    return el.getAttribute("aria-readonly") === "true";
  }

  /** @param {Element} el */
  function isCheckable(el) {
    if (el instanceof HTMLInputElement) return el.type === "checkbox" || el.type === "radio";
    return CHECKABLE_ROLES.has(el.getAttribute("role") || "");
  }

  /** @param {Element} el */
  function isChecked(el) {
    if (el instanceof HTMLInputElement) return el.checked;
    return el.getAttribute("aria-checked") === "true" || el.getAttribute("aria-pressed") === "true";
  }

  /** @param {Element} el */
  function isVisible(el) {
    const rect = el.getBoundingClientRect();
    if (rect.width <= 0 || rect.height <= 0) return false;
    if (typeof el.checkVisibility === "function") return el.checkVisibility({ visibilityProperty: true });
    return getComputedStyle(el).visibility !== "hidden";
  }

  /** The parent in the composed tree: through shadow roots (open or closed) to their hosts. */
  function composedParent(/** @type {Node} */ node) {
    if (node.parentNode instanceof ShadowRoot) return node.parentNode.host;
    return node.parentNode;
  }

  /** True when `node` is `el` or inside it, crossing shadow boundaries. */
  function within(/** @type {Node|null} */ node, /** @type {Element} */ el) {
    for (let n = node; n; n = composedParent(n)) if (n === el) return true;
    return false;
  }

  /** @param {Element} el */
  function shadowRootOf(el) {
    try {
      // chrome.dom exists from Chrome 88; it alone reaches closed shadow roots.
      return typeof chrome.dom?.openOrClosedShadowRoot === "function" && el instanceof HTMLElement ? chrome.dom.openOrClosedShadowRoot(el) : el.shadowRoot;
    } catch {
      return el.shadowRoot;
    }
  }

  /** The deepest element at a point, descending into open and closed shadow roots. */
  function deepElementFromPoint(/** @type {number} */ x, /** @type {number} */ y) {
    let hit = document.elementFromPoint(x, y);
    for (let depth = 0; hit && depth < 32; depth++) {
      const root = shadowRootOf(hit);
      if (!root) break;
      const inner = root.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  /** True when a pointer at the hit element would reach `el`: itself, a descendant, or its label. */
  function reaches(/** @type {Element|null} */ hit, /** @type {Element} */ el) {
    if (!hit) return false;
    if (within(hit, el)) return true;
    const label = hit.closest("label");
    return Boolean(label && /** @type {HTMLLabelElement} */ (label).control === el);
  }

  const nextFrame = () => new Promise((r) => {
    // rAF does not run in hidden tabs: a timer keeps the check bounded there.
    const t = setTimeout(r, 50);
    requestAnimationFrame(() => { clearTimeout(t); r(undefined); });
  });

  /**
   * The element's box once it has stopped moving. Where nothing may be moving it (see motion)
   * and the action's scroll left it where it was (`unscrolled`), that is its box now. Otherwise
   * it is the same box in two consecutive animation frames, and for as long as a step of a
   * script's short timer when one is under way: such a timer may move it less often than
   * frames come.
   * @param {Element} el @param {DOMRect} unscrolled
   */
  async function stableBox(el, unscrolled) {
    const started = performance.now();
    let prev = el.getBoundingClientRect();
    const moving = motion(el);
    if (moving === "none" && sameBox(prev, unscrolled)) return prev;
    const holdMs = moving === "timers" ? TIMER_STEP_MS : 0;
    let still = performance.now();
    for (;;) {
      await nextFrame();
      const now = el.getBoundingClientRect();
      if (!sameBox(now, prev)) still = performance.now();
      else if (performance.now() - still >= holdMs && animating(el, STABLE_TIMEOUT_MS - (performance.now() - started)) !== "finite") return now;
      if (performance.now() - started > STABLE_TIMEOUT_MS) throw new ActError("timeout", `${describe(el)} kept moving for ${STABLE_TIMEOUT_MS} ms`);
      prev = now;
    }
  }

  /** @param {DOMRect} a @param {DOMRect} b */
  function sameBox(a, b) {
    return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
  }

  /** What an animation may change without moving anything's layout box. */
  const PAINT_ONLY = new Set([
    "opacity", "color", "background-color", "background-position", "box-shadow", "filter", "outline-color", "border-color",
    "fill", "stroke", "visibility", "clip-path", "transform", "translate", "rotate", "scale",
  ]);

  /** The CSS properties an animation changes (kebab-case). @param {Animation} animation @returns {string[]} */
  function animatedProperties(animation) {
    if (typeof CSSTransition !== "undefined" && animation instanceof CSSTransition) return [animation.transitionProperty];
    const effect = animation.effect;
    if (!(effect instanceof KeyframeEffect)) return ["all"];
    const names = new Set();
    for (const frame of effect.getKeyframes()) {
      for (const key of Object.keys(frame)) {
        if (key !== "offset" && key !== "computedOffset" && key !== "easing" && key !== "composite") names.add(key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
      }
    }
    return [...names];
  }

  /**
   * What may be moving an element of this frame: "none", so the box it has now is where the
   * press will find it; "timers", a script's short timer or interval is under way (activity.js);
   * "frames" otherwise: a frame callback is pending, a running animation moves it or an
   * ancestor or changes anyone's layout, the page's activity is out of view, or this is a child
   * frame (whose scroll into view may have moved the iframe in the page around it, which the
   * browser routes input by). A wrong "none" cannot click the wrong thing: the press guard holds
   * back a press that no longer reaches the element.
   * @param {Element} el @returns {"none"|"frames"|"timers"}
   */
  function motion(el) {
    if (window.top !== window || !askActivity("__waymark_activity_here")) return "frames";
    if (askActivity("__waymark_motion_frames") || animating(el, STABLE_TIMEOUT_MS) !== "none") return "frames";
    return askActivity("__waymark_motion_timers") ? "timers" : "none";
  }

  /**
   * The running animations that may move an element: those on it or an ancestor, and those
   * that change anyone's layout. "finite" when one of them ends within `withinMs` (a
   * transition, a slide-in: the box that counts is the one after it), "endless" when they all
   * loop or last longer (the box is taken once it holds still), "none" without any. An
   * animation about to start (its class was just set) counts as running.
   * @param {Element} el @param {number} withinMs @returns {"none"|"finite"|"endless"}
   */
  function animating(el, withinMs) {
    /** The document and every shadow root around the element: each lists its own animations. @type {Set<Document|ShadowRoot>} */
    const roots = new Set();
    for (let n = /** @type {Node|null} */ (el); n; n = composedParent(n)) {
      const root = n.getRootNode();
      if (root instanceof Document || root instanceof ShadowRoot) roots.add(root);
    }
    /** @type {"none"|"finite"|"endless"} */
    let found = "none";
    for (const root of roots) {
      for (const animation of root.getAnimations()) {
        if (animation.playState !== "running" && !animation.pending) continue;
        const effect = animation.effect;
        const on = effect instanceof KeyframeEffect ? effect.target : null;
        if (on && !within(el, on) && animatedProperties(animation).every((name) => PAINT_ONLY.has(name))) continue;
        const timing = effect?.getComputedTiming();
        const end = Number(timing?.endTime), at = Number(timing?.localTime ?? 0);
        if (Number.isFinite(end) && end - at <= withinMs) return "finite";
        found = "endless";
      }
    }
    return found;
  }

  /** Points to try for the hit test: the centre of the visible part, then four inner points. */
  function probePoints(/** @type {DOMRect} */ rect) {
    const left = Math.max(rect.left, 0), top = Math.max(rect.top, 0);
    const right = Math.min(rect.right, innerWidth), bottom = Math.min(rect.bottom, innerHeight);
    if (right <= left || bottom <= top) return [];
    const cx = (left + right) / 2, cy = (top + bottom) / 2;
    const w = right - left, h = bottom - top;
    return [[cx, cy], [left + w / 4, top + h / 4], [right - w / 4, top + h / 4], [left + w / 4, bottom - h / 4], [right - w / 4, bottom - h / 4]];
  }

  /**
   * The element a checkbox action clicks: the input itself, or its label when the input is
   * visually replaced by a styled label (a common custom-checkbox pattern).
   * @param {Element} el
   */
  function checkTarget(el) {
    if (isVisible(el) || !(el instanceof HTMLInputElement)) return el;
    const label = [...(el.labels || [])].find(isVisible);
    return label || el;
  }

  /**
   * Scroll into view and run the actionability checks that `kind` needs.
   * Returns the point to act at, in this frame's viewport (CSS pixels).
   * With `guard`, a guard for the trusted press that follows is armed on success (see armGuard).
   * @param {{localRef: number, mode: "pointer"|"edit"|"check"|"select", scroll?: boolean, guard?: boolean, want?: boolean}} msg
   */
  async function prepare(msg) {
    let el = resolve(msg.localRef);
    if (msg.mode === "check") {
      if (!isCheckable(el)) throw new ActError("not_checkable", `${describe(el)} is not a checkbox, radio or switch`);
      el = checkTarget(el);
    }
    if (msg.mode === "edit") {
      if (!isEditable(el)) throw new ActError("not_editable", `${describe(el)} does not accept text`);
    }
    // A custom widget (combobox, listbox, div dropdown) is clicked open like a button: see forms.js.
    const native = msg.mode === "select" ? el instanceof HTMLSelectElement : undefined;
    const unscrolled = el.getBoundingClientRect();
    if (msg.scroll !== false) el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    if (!isVisible(el)) throw new ActError("not_visible", `${describe(el)} is not visible (hidden or zero-size)`);
    const target = resolve(msg.localRef);
    if (isDisabled(target)) throw new ActError("disabled", `${describe(target)} is disabled`);
    if (msg.mode === "edit" && isReadonly(target)) throw new ActError("readonly", `${describe(target)} is read-only`);
    const rect = await stableBox(el, unscrolled);
    const points = probePoints(rect);
    if (!points.length) throw new ActError("not_visible", `${describe(el)} is outside the viewport even after scrolling`);
    let firstHit = null;
    for (const [x, y] of points) {
      const hit = deepElementFromPoint(x, y);
      if (reaches(hit, el)) {
        const picker = target instanceof HTMLInputElement && PICKER_INPUT_TYPES.has(target.type);
        const checked = isCheckable(target) ? isChecked(target) : null;
        // The guard for the trusted press that follows is armed here, not by a message of its own:
        // not for a box already as wanted (nothing is pressed) nor a picker (set, not clicked).
        const guarded = Boolean(msg.guard) && !picker && !(msg.mode === "check" && checked === msg.want);
        if (guarded) armGuard(el);
        // A line break typed into a one-line field is no Enter key (which would submit its form).
        const multiline = msg.mode === "edit" ? !(target instanceof HTMLInputElement) : undefined;
        return { x, y, box: [rect.x, rect.y, rect.width, rect.height], checked, picker, guarded, native, multiline };
      }
      firstHit = firstHit || hit;
    }
    const occluder = firstHit ? topmostOccluder(firstHit, el) : null;
    throw new ActError("occluded", `${describe(el)} is covered by ${occluder ? describe(occluder) : "another element"}`, occluder ? { occluder_local_ref: core.refFor(occluder), occluder: describe(occluder) } : {});
  }

  /** The outermost ancestor of the hit that does not contain the target: the modal, not its inner span. */
  function topmostOccluder(/** @type {Element} */ hit, /** @type {Element} */ el) {
    let best = hit;
    for (let n = composedParent(hit); n && n instanceof Element && n !== document.body && n !== document.documentElement; n = composedParent(n)) {
      if (within(el, n)) break;
      const style = getComputedStyle(n);
      if (style.position === "fixed" || style.position === "absolute" || style.position === "sticky" || Number(style.zIndex) > 0) best = n;
    }
    return best;
  }

  // ------------------------------------------------------------------ synthetic input

  /** Native value setter of the element's own class: bypasses a framework's instance-level tracker. */
  function setNativeValue(/** @type {HTMLInputElement|HTMLTextAreaElement|HTMLSelectElement} */ el, /** @type {string} */ value) {
    const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    const setter = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(proto, "value")).set;
    /** @type {(v: string) => void} */ (setter).call(el, value);
  }

  /** The input and change events React and Vue listen for. */
  function fireValueEvents(/** @type {Element} */ el, /** @type {string} */ data, /** @type {string} */ inputType) {
    el.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType, data }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  }

  /** A pointer and mouse sequence ending in click, at a point (what a person's click fires). */
  function syntheticClick(/** @type {Element} */ el, /** @type {number} */ x, /** @type {number} */ y, clickCount = 1) {
    const base = { bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y, view: window };
    el.dispatchEvent(new PointerEvent("pointerover", base));
    el.dispatchEvent(new MouseEvent("mouseover", base));
    for (let n = 1; n <= clickCount; n++) {
      el.dispatchEvent(new PointerEvent("pointerdown", { ...base, button: 0, buttons: 1, pointerType: "mouse", isPrimary: true }));
      el.dispatchEvent(new MouseEvent("mousedown", { ...base, button: 0, buttons: 1, detail: n }));
      if (el instanceof HTMLElement && n === 1) el.focus({ preventScroll: true });
      el.dispatchEvent(new PointerEvent("pointerup", { ...base, button: 0, buttons: 0, pointerType: "mouse", isPrimary: true }));
      el.dispatchEvent(new MouseEvent("mouseup", { ...base, button: 0, detail: n }));
      el.dispatchEvent(new MouseEvent("click", { ...base, button: 0, detail: n }));
    }
    if (clickCount === 2) el.dispatchEvent(new MouseEvent("dblclick", { ...base, button: 0, detail: 2 }));
  }

  /** The key a fill clears a field with, after selecting all of it. @type {PressKey} */
  const BACKSPACE = { key: "Backspace", code: "Backspace", keyCode: 8 };

  /**
   * Type into a field with synthetic events, keystroke by keystroke of the service worker's plan
   * (sw/keyboard.js: a key per character of the layout, an insertion for what no key types), each
   * key firing keydown, keypress (keys that type), beforeinput, input and keyup as a browser does;
   * a fill first selects everything and clears it with a Backspace. Values are written with the
   * native setter, so React- and Vue-controlled inputs see them; change fires once at the end.
   * Date and time fields are set as a whole (their typed form depends on the locale).
   * @param {Element} el @param {string} text  a date or time field's value @param {boolean} replace @param {Stroke[]=} strokes
   */
  function syntheticText(el, text, replace, strokes) {
    if (el instanceof HTMLElement) el.focus({ preventScroll: true });
    if (el instanceof HTMLInputElement && PICKER_INPUT_TYPES.has(el.type)) {
      setNativeValue(el, text);
      // The browser drops a value that is not in the field's format: say so instead of pretending.
      if (el.value !== text) throw new ActError("invalid_value", `${describe(el)} takes a ${el.type} value in ISO form (for example ${PICKER_EXAMPLES[el.type]})`);
      fireValueEvents(el, text, "insertReplacementText");
      return;
    }
    const plan = typed(strokes);
    const field = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ? el : null;
    if (!field) selectContents(el, replace);
    if (replace && (field ? field.value : el.textContent || "") !== "") syntheticKey(el, BACKSPACE, () => syntheticEdit(el, "", "deleteContentBackward"));
    for (const stroke of plan) {
      const key = stroke.key;
      if (!key) syntheticEdit(el, stroke.insert || "", "insertText");
      else if (!key.text) syntheticKey(el, key, null);
      else if (key.text === "\r") syntheticKey(el, key, () => syntheticEdit(el, "\n", "insertLineBreak"));
      else syntheticKey(el, key, () => syntheticEdit(el, /** @type {string} */ (key.text), "insertText"));
    }
    if (field) el.dispatchEvent(new Event("change", { bubbles: true }));
  }

  /** Select an editor's contents (to replace them) or put the caret at their end. @param {Element} el @param {boolean} all */
  function selectContents(el, all) {
    const selection = /** @type {Selection} */ (getSelection());
    const range = document.createRange();
    range.selectNodeContents(el);
    if (!all) range.collapse(false);
    selection.removeAllRanges();
    selection.addRange(range);
  }

  /**
   * One edit as typing makes it: beforeinput (a page that cancels it keeps its text), the change,
   * input. A field's text goes at its end (the caret typing leaves there); an editor's at the caret.
   * @param {Element} el @param {string} data @param {"insertText"|"insertLineBreak"|"deleteContentBackward"} inputType
   */
  function syntheticEdit(el, data, inputType) {
    const deleting = inputType === "deleteContentBackward";
    const init = { bubbles: true, composed: true, inputType, data: deleting ? null : data };
    if (!el.dispatchEvent(new InputEvent("beforeinput", { ...init, cancelable: true }))) return;
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      setNativeValue(el, deleting ? "" : el.value + data);
      el.dispatchEvent(new InputEvent("input", init));
      return;
    }
    // contenteditable: execCommand keeps the editor's own undo stack and fires its input event.
    const command = deleting ? "delete" : inputType === "insertLineBreak" ? "insertLineBreak" : "insertText";
    if (document.execCommand(command, false, data)) return;
    if (deleting) el.textContent = "";
    else el.append(data);
    el.dispatchEvent(new InputEvent("input", init));
  }

  /** A KeyboardEvent's init for a key and its modifier bits (Alt 1, Control 2, Meta 4, Shift 8). @param {PressKey} k */
  function keyInit(k) {
    const mods = k.modifiers || 0;
    return { key: k.key, code: k.code, keyCode: k.keyCode, which: k.keyCode, bubbles: true, cancelable: true, composed: true, altKey: Boolean(mods & 1), ctrlKey: Boolean(mods & 2), metaKey: Boolean(mods & 4), shiftKey: Boolean(mods & 8) };
  }

  /**
   * One key as a browser fires it: keydown, keypress for a key that types, its effect unless the
   * page cancelled either, keyup.
   * @param {Element} el @param {PressKey} k @param {(() => void)|null} effect
   */
  function syntheticKey(el, k, effect) {
    const init = keyInit(k);
    let proceed = el.dispatchEvent(new KeyboardEvent("keydown", init));
    // A keypress carries the character's code where keydown carries the key's, as in a browser.
    const charCode = k.text ? k.text.charCodeAt(0) : 0;
    if (proceed && k.text) proceed = el.dispatchEvent(new KeyboardEvent("keypress", { ...init, keyCode: charCode, which: charCode, charCode }));
    if (proceed && effect) effect();
    el.dispatchEvent(new KeyboardEvent("keyup", init));
  }

  /** Key events for a combo; Enter in a form field submits it (the default action synthetic events lack). */
  function syntheticPress(/** @type {Element} */ el, /** @type {PressKey} */ k) {
    const init = keyInit(k);
    const proceed = el.dispatchEvent(new KeyboardEvent("keydown", init));
    if (proceed && k.key.length === 1) el.dispatchEvent(new KeyboardEvent("keypress", init));
    el.dispatchEvent(new KeyboardEvent("keyup", init));
    if (!proceed || k.modifiers) return;
    if (k.key === "Enter") {
      if (el instanceof HTMLInputElement && el.form) el.form.requestSubmit();
      else if (el instanceof HTMLButtonElement || el instanceof HTMLAnchorElement) el.click();
    } else if (k.key === " " && (el instanceof HTMLButtonElement || (el instanceof HTMLInputElement && isCheckable(el)))) {
      el.click();
    }
  }

  /** The focused element, descending into shadow roots and same-origin frames. */
  function deepActiveElement() {
    let el = document.activeElement;
    for (let depth = 0; el && depth < 32; depth++) {
      const root = shadowRootOf(el);
      if (root?.activeElement) el = root.activeElement;
      else break;
    }
    return el || document.body;
  }

  /**
   * @typedef {{type: string, text?: string}} SyntheticAction
   * @typedef {(el: Element, x: number, y: number, a: SyntheticAction, key: PressKey|undefined, strokes: Stroke[]|undefined) => void} SyntheticForm
   * @typedef {{key: string, code: string, keyCode: number, modifiers?: number, text?: string}} PressKey
   * @typedef {{key?: PressKey, insert?: string}} Stroke  one keystroke of the service worker's plan (sw/keyboard.js), or text no key types
   */

  /**
   * The synthetic form of each action the service worker may fall back on (no debugger): the
   * DOM events a person's input would fire, dispatched by script.
   * @type {Record<string, SyntheticForm>}
   */
  const SYNTHETIC = {
    click: (el, x, y) => syntheticClick(el, x, y),
    double_click: (el, x, y) => syntheticClick(el, x, y, 2),
    hover: (el, x, y) => {
      const base = { bubbles: true, composed: true, clientX: x, clientY: y, view: window };
      el.dispatchEvent(new PointerEvent("pointerover", base));
      el.dispatchEvent(new MouseEvent("mouseover", base));
      el.dispatchEvent(new MouseEvent("mouseenter", { ...base, bubbles: false }));
      el.dispatchEvent(new MouseEvent("mousemove", base));
    },
    type: (el, _x, _y, a, _key, strokes) => syntheticText(el, a.text ?? "", false, strokes),
    fill: (el, _x, _y, a, _key, strokes) => syntheticText(el, a.text ?? "", true, strokes),
    press: (el, _x, _y, _a, key) => {
      if (!key) throw new ActError("bad_action", "press needs a key");
      syntheticPress(el, key);
    },
    check: (el) => clickCheckTarget(el),
    uncheck: (el) => clickCheckTarget(el),
  };

  /** The keystrokes a type or fill came with (sw/keyboard.js plans them). @param {Stroke[]|undefined} strokes */
  function typed(strokes) {
    if (!strokes) throw new ActError("bad_action", "typing needs its keystrokes");
    return strokes;
  }

  /** A box's click lands on what a person would click: the box, or its label when the box is hidden. @param {Element} el */
  function clickCheckTarget(el) {
    const target = checkTarget(el);
    const r = target.getBoundingClientRect();
    syntheticClick(target, r.x + r.width / 2, r.y + r.height / 2);
  }

  /**
   * Carry out an action with synthetic DOM events (the fallback path).
   * @param {{localRef?: number, action: SyntheticAction, x?: number, y?: number, key?: PressKey, strokes?: Stroke[]}} msg
   */
  function perform(msg) {
    disarmGuard(); // the trusted path was not taken: no trusted press is coming
    const a = msg.action;
    const form = Object.hasOwn(SYNTHETIC, a.type) ? SYNTHETIC[a.type] : null;
    if (!form) throw new ActError("bad_action", `no synthetic form of ${a.type}`);
    const el = msg.localRef ? resolve(msg.localRef) : deepActiveElement();
    const rect = el.getBoundingClientRect();
    form(el, msg.x ?? rect.x + rect.width / 2, msg.y ?? rect.y + rect.height / 2, a, msg.key, msg.strokes);
    return { checked: isCheckable(el) ? isChecked(el) : null };
  }

  /**
   * Prepare a focused field for trusted text: select everything (fill) or put the caret at the end (type).
   * @param {{localRef: number, replace: boolean}} msg
   */
  function caret(msg) {
    // A press held back, or one that never arrived here, focused nothing: the caller fails
    // without placing a caret or typing.
    const held = disarmGuard();
    if (held?.intercepted || held?.arrived === false) return { guard: held };
    const el = resolve(msg.localRef);
    if (el instanceof HTMLElement && !within(deepActiveElement(), el)) el.focus({ preventScroll: true });
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      if (msg.replace) {
        el.select();
        return { needsEnd: false, empty: el.value === "" };
      }
      try {
        el.setSelectionRange(el.value.length, el.value.length);
        return { needsEnd: false, empty: el.value === "" };
      } catch {
        // email and number inputs have no selection API: the caller presses End instead.
        return { needsEnd: true, empty: el.value === "" };
      }
    }
    selectContents(el, msg.replace);
    return { needsEnd: false, empty: (el.textContent || "") === "" };
  }

  /**
   * Choose a select's option by value or visible label.
   * @param {{localRef: number, value: string}} msg
   */
  function selectOption(msg) {
    const el = resolve(msg.localRef);
    if (!(el instanceof HTMLSelectElement)) throw new ActError("not_editable", `${describe(el)} is not a select`);
    const wanted = msg.value.trim();
    const options = [...el.options];
    const option = options.find((o) => o.value === msg.value) || options.find((o) => o.label.trim() === wanted || (o.textContent || "").trim() === wanted)
      || options.find((o) => o.label.trim().toLowerCase() === wanted.toLowerCase());
    if (!option) throw new ActError("no_such_option", `${describe(el)} has no option with value or label ${JSON.stringify(msg.value)}`, { options: options.slice(0, 50).map((o) => o.label.trim()) });
    if (option.disabled) throw new ActError("disabled", `option ${JSON.stringify(option.label)} is disabled`);
    el.focus({ preventScroll: true });
    if (el.value !== option.value || !option.selected) {
      // A multiple select keeps what is already chosen, as a Ctrl+click on the option does.
      if (!el.multiple) setNativeValue(el, option.value);
      option.selected = true;
      fireValueEvents(el, option.value, "insertReplacementText");
    }
    return { value: el.value, label: option.label };
  }

  /** @param {{localRef: number}} msg */
  function readChecked(msg) {
    const held = disarmGuard();
    const el = core.elementFor(msg.localRef);
    // A page that re-renders on change replaces the box the press toggled: the guard's verdict
    // still says whether the press landed, and the new box's state is in the next snapshot.
    if (!el) return { checked: null, replaced: true, ...(held ? { guard: held } : {}) };
    return { checked: isChecked(el), ...(held ? { guard: held } : {}) };
  }

  /**
   * Scroll the page or a scrollable element by an amount in a direction.
   * @param {{localRef?: number, direction: string, amount?: number|null}} msg
   */
  function scroll(msg) {
    return scrollFrom(msg.localRef ? resolve(msg.localRef) : null, msg.direction, msg.amount);
  }

  /**
   * Scroll what `from` is in (the page when null) by an amount in a direction.
   * @param {Element|null} from @param {string} direction @param {number|null|undefined} amountPx
   */
  function scrollFrom(from, direction, amountPx) {
    const vertical = direction === "up" || direction === "down";
    const page = document.scrollingElement || document.documentElement;
    // A ref inside a scrolling list scrolls the list: the element itself or its nearest scrollable ancestor.
    const scroller = from ? scrollableFrom(from, vertical) || page : page;
    const size = scroller === page ? (vertical ? innerHeight : innerWidth) : vertical ? scroller.clientHeight : scroller.clientWidth;
    const sign = direction === "up" || direction === "left" ? -1 : 1;
    const amount = amountPx ?? Math.round(size * 0.8);
    const before = [scroller.scrollLeft, scroller.scrollTop];
    scroller.scrollBy({ left: vertical ? 0 : sign * amount, top: vertical ? sign * amount : 0, behavior: "instant" });
    const moved = [scroller.scrollLeft - before[0], scroller.scrollTop - before[1]];
    return { scrolled: moved, at_edge: moved[0] === 0 && moved[1] === 0, target: scroller === page ? "page" : describe(scroller) };
  }

  /** The element or its nearest ancestor that scrolls on this axis, or null. */
  function scrollableFrom(/** @type {Node} */ from, /** @type {boolean} */ vertical) {
    for (let n = /** @type {Node|null} */ (from); n; n = composedParent(n)) {
      if (!(n instanceof Element) || n === document.documentElement || n === document.body) continue;
      const overflow = getComputedStyle(n)[vertical ? "overflowY" : "overflowX"];
      const room = vertical ? n.scrollHeight > n.clientHeight : n.scrollWidth > n.clientWidth;
      if (room && (overflow === "auto" || overflow === "scroll" || overflow === "overlay")) return n;
    }
    return null;
  }

  /**
   * The text of an element, or of this frame's document: its main content in a top document
   * (its whole body when `whole`: a toast or a flash message stands outside the main content),
   * its whole body in a child frame (a payment form's "Coupon applied"). Says where the frame
   * sits in its parent and whether it has any size, so the service worker can stitch the
   * frames' texts in order and skip invisible ones.
   * @param {{localRef?: number, max_chars: number, whole?: boolean}} msg
   */
  function extract(msg) {
    const top = window.parent === window;
    const main = top && !msg.whole ? document.querySelector("main, [role=main]") || document.querySelector("article") : null;
    const el = msg.localRef ? resolve(msg.localRef) : main || document.body;
    let text = "";
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) text = el.type === "password" ? "" : el.value;
    else if (el instanceof HTMLElement) text = el.innerText || el.textContent || "";
    else if (el) text = el.textContent || "";
    // innerText ends each table cell but a row's last with a tab: kept, they are what tells one
    // cell from the next ("Total\t1249"); spaces and blank lines collapse.
    text = text.replace(/[ \f\v\u00a0]+/g, " ").replace(/ ?\t ?/g, "\t").replace(/ *\n[ \n]*/g, "\n").replace(/^[ \n]+|[ \n]+$/g, "");
    return {
      text: text.slice(0, msg.max_chars), truncated: text.length > msg.max_chars, total_chars: text.length,
      frameIndex: core.frameIndex(), visible: window.innerWidth > 0 && window.innerHeight > 0,
    };
  }

  /**
   * A yes-or-no question to the page-world tracker (activity.js): it answers yes by cancelling
   * the event. `__waymark_activity_here`: is it running in this document (not in pages loaded
   * before the extension); `__waymark_busy` with a moment (performance.now() here): is work the
   * page started since then still pending; `__waymark_sent` with a moment: has the page sent a
   * request or a form since then.
   * @param {string} type @param {number=} detail
   */
  function askActivity(type, detail) {
    const ask = new CustomEvent(type, { cancelable: true, detail });
    document.dispatchEvent(ask);
    return ask.defaultPrevented;
  }

  /**
   * Resolve once the page has settled, or after `maxMs`. With the page's activity in view
   * (activity.js), settled = no request or short timer started by the action still pending, a
   * frame rendered and no DOM mutation for `quietMs`; without it, at least `fallbackMinMs` must
   * pass as well. `sinceEpochMs` (wall-clock) is when the action began, so work it started is waited for.
   * @param {{quietMs: number, minMs?: number, fallbackMinMs?: number, maxMs: number, sinceEpochMs: number}} msg
   */
  function quiet(msg) {
    // The press this settle follows has landed or was held back: say which with the answer.
    const held = disarmGuard();
    return new Promise((done) => {
      const start = performance.now();
      // The isolated world's Date is the browser's, whatever the page did to its own. A margin for
      // the clock's millisecond steps: work started just before the action counts too.
      const since = start - Math.max(0, Date.now() - msg.sinceEpochMs) - 20;
      const tracked = askActivity("__waymark_activity_here");
      const minMs = Math.max(msg.minMs || 0, tracked ? 0 : msg.fallbackMinMs || 0);
      let last = start;
      let mutations = 0;
      let rendered = false;
      nextFrame().then(() => { rendered = true; check(); });
      const observer = new MutationObserver((records) => {
        mutations += records.length;
        last = performance.now();
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      /** @type {ReturnType<typeof setTimeout>|undefined} */
      let timer;
      let finished = false;
      function check() {
        if (finished) return;
        clearTimeout(timer);
        const now = performance.now();
        const quietFor = now - last, waited = now - start;
        const minLeft = minMs - waited;
        const busy = tracked && askActivity("__waymark_busy", since);
        if ((rendered && !busy && quietFor >= msg.quietMs && minLeft <= 0) || waited >= msg.maxMs) {
          finished = true;
          observer.disconnect();
          const sent = tracked && askActivity("__waymark_sent", since);
          done({ quiet: quietFor >= msg.quietMs && !busy, mutations, waited_ms: waited, tracked, sent, ...(held ? { guard: held } : {}) });
          return;
        }
        // Pending work ends without a signal we can see: look again soon while it lasts.
        const wait = busy ? 10 : Math.max(msg.quietMs - quietFor, minLeft, 1);
        timer = setTimeout(check, Math.max(1, Math.min(wait, msg.maxMs - waited)));
      }
      timer = setTimeout(check, Math.min(Math.max(msg.quietMs, minMs), msg.maxMs));
    });
  }

  /**
   * Hit-test a point of this frame for a child frame's click: the pointer must reach an iframe,
   * not a banner or modal of this document drawn over it.
   * @param {{x: number, y: number}} msg
   */
  function hitFrame(msg) {
    const hit = deepElementFromPoint(msg.x, msg.y);
    if (hit && (hit.localName === "iframe" || hit.localName === "frame")) return { reaches: true };
    const occluder = hit ? topmostOccluder(hit, document.documentElement) : null;
    return { reaches: false, docId: core.docId, occluder_local_ref: occluder ? core.refFor(occluder) : null, occluder: occluder ? describe(occluder) : "nothing (outside the page)" };
  }

  // The helpers pointer.js (drag, right_click, the pointer at coordinates) builds on.
  core.pointer = { ActError, resolve, describe, deepElementFromPoint, composedParent, syntheticClick, scrollableFrom };

  // ------------------------------------------------------------------ press guard

  /** The events of a press (and of a double click): the first one decides for all of them. */
  const PRESS_EVENTS = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "auxclick", "dblclick", "contextmenu"];
  /** @type {{el: Element, reached: boolean|null, stale: boolean, hit: Element|null, moved: boolean, listener: (ev: Event) => void, onMove: (ev: Event) => void}|null} */
  let guard = null;

  /**
   * Hold back a trusted press that would land on something other than its target. Between the
   * hit test and the press the page can draw something over the target (a suggestion menu that
   * opens 300 ms after typing, a menu that opens on hover): the press's first event is hit-tested
   * again at its own point, and when it no longer reaches the target, that event and the rest of
   * the press are cancelled before the page's own listeners see them, so nothing else is clicked
   * (Playwright's hit-target interception does the same).
   * The verdict is read by the next message the press is followed by: settle's quiet, the
   * caret, the checked state, or a synthetic fallback, which all end the guard first.
   * @param {Element} el  the element the press must reach
   */
  function armGuard(el) {
    disarmGuard();
    /** @type {NonNullable<typeof guard>} */
    const state = {
      el, reached: null, stale: false, hit: null, moved: false,
      // The pointer's move arrived in this document: the browser routes input here now.
      onMove: (ev) => { if (ev.isTrusted) state.moved = true; },
      listener: (ev) => {
        if (!ev.isTrusted) return;
        if (state.reached === null) {
          const { clientX, clientY } = /** @type {MouseEvent} */ (ev);
          state.hit = deepElementFromPoint(clientX, clientY);
          state.stale = !el.isConnected;
          state.reached = !state.stale && reaches(state.hit, el);
        }
        if (state.reached) return;
        ev.preventDefault();
        ev.stopImmediatePropagation();
      },
    };
    for (const type of PRESS_EVENTS) window.addEventListener(type, state.listener, { capture: true });
    window.addEventListener("mousemove", state.onMove, { capture: true });
    guard = state;
    return { armed: true };
  }

  /**
   * End the guard and say whether the press was held back, and by what it would have hit; null
   * when no guard was armed. `arrived`: a trusted press event reached this document at all.
   * @returns {{intercepted: boolean, arrived?: boolean, stale?: boolean, occluder_local_ref?: number|null, occluder?: string}|null}
   */
  function disarmGuard() {
    const state = guard;
    guard = null;
    if (!state) return null;
    for (const type of PRESS_EVENTS) window.removeEventListener(type, state.listener, { capture: true });
    window.removeEventListener("mousemove", state.onMove, { capture: true });
    if (state.reached !== false) return { intercepted: false, arrived: state.reached === true };
    // Re-rendered under the pointer: whatever is there now is a look-alike, never clicked in its place.
    if (state.stale) return { intercepted: true, stale: true };
    const occluder = state.hit ? topmostOccluder(state.hit, state.el) : null;
    return { intercepted: true, occluder_local_ref: occluder ? core.refFor(occluder) : null, occluder: occluder ? describe(occluder) : "another element" };
  }

  // The helpers forms.js (upload, text selection, clipboard, custom selects) builds on.
  core.act = { ActError, resolve, describe, isVisible, isDisabled, deepActiveElement, setNativeValue };

  core.handle(KIND.ACT_PREPARE, prepare);
  core.handle(KIND.ACT_GUARD_RESULT, () => disarmGuard() || { intercepted: false });
  core.handle(KIND.ACT_GUARD_MOVED, () => ({ moved: guard ? guard.moved : true }));
  core.handle(KIND.ACT_HIT_FRAME, hitFrame);
  core.handle(KIND.ACT_PERFORM, perform);
  core.handle(KIND.ACT_CARET, caret);
  core.handle(KIND.ACT_SELECT, selectOption);
  core.handle(KIND.ACT_CHECKED, readChecked);
  core.handle(KIND.ACT_FOCUS, (/** @type {{localRef: number}} */ msg) => {
    const el = resolve(msg.localRef);
    if (el instanceof HTMLElement || el instanceof SVGElement) el.focus({ preventScroll: false });
    return { focused: within(deepActiveElement(), el) };
  });
  core.handle(KIND.ACT_SCROLL, scroll);
  core.handle(KIND.ACT_EXTRACT, extract);
  core.handle(KIND.SETTLE_QUIET, quiet);
  core.handle(KIND.ACT_LOCATION, () => ({ url: location.href, docId: core.docId }));
})();
