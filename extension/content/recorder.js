// @ts-check
/**
 * The recorder of one frame (classic content script, after content/snapshot.js): while the
 * service worker has armed it (its tab is being recorded, extension/sw/recorder.js), it reports
 * each action the user's own hand made as a step: clicks, a field's final value, a choice in a
 * select, Enter in a field. Only trusted events count (the page's own script events are not the
 * user), and they are read in the capture phase, before the page's handlers can stop them.
 *
 * A step names its element by role and accessible name as the snapshot does (core.roleName) and
 * by its ref when a snapshot gave it one (the service worker finds its neighbours there); never by
 * a CSS path. A password field's value never leaves this frame: the step says only that a secret
 * was typed, and the service worker binds it to the frame's real origin.
 *
 * A dialog the page opens while armed is the user's to answer: the page-world script
 * (content/dialogs.js) lets it open, and says here what it asked and how the user answered, which
 * goes to the service worker with the step that raised it.
 */
/** @typedef {import("../shared/content_types.js").RecordedAction} RecordedAction */
(() => {
  const g = /** @type {import("../shared/content_types.js").ContentGlobal} */ (globalThis);
  const core = g.__waymark;
  const KIND = g.__waymarkKinds;
  if (!core || !KIND || core.recorderLoaded || !core.roleName) return;
  core.recorderLoaded = true;
  const roleName = core.roleName;

  let armed = false;
  /** The user asked to mark the answer and selected nothing: the next element clicked is the answer, not a step. */
  let marking = false;
  /** Roles whose click only puts the caret or opens a list: what the user then types or picks is the step. */
  const FOCUS_ONLY = new Set(["textbox", "searchbox", "combobox", "listbox", "spinbutton", "slider"]);
  /** Input types whose value is typed text (a field's final value is one step). */
  const TYPED = new Set(["text", "search", "email", "url", "tel", "number", "password", "date", "time", "datetime-local", "month", "week", ""]);
  /** autocomplete tokens of secrets: such a field's value is never read. */
  const SECRET_AUTOCOMPLETE = /(current-password|new-password|one-time-code|cc-number|cc-csc)/i;
  /** The value each field was last reported with, so Enter then change report it once. */
  /** @type {WeakMap<Element, string>} */
  const reported = new WeakMap();

  /**
   * The element a person operated: the nearest one on the event's composed path (open shadow
   * roots included) that the snapshot lists with a role.
   * @param {Event} event
   */
  function operated(event) {
    for (const node of event.composedPath()) {
      if (!(node instanceof Element)) continue;
      if (node === document.body || node === document.documentElement) return null;
      const described = roleName(node);
      if (described) return { el: node, ...described };
    }
    return null;
  }

  /** @param {Element} el */
  function isSecretField(el) {
    return el instanceof HTMLInputElement && (el.type === "password" || SECRET_AUTOCOMPLETE.test(el.autocomplete || ""));
  }

  /** @param {Element} el */
  function isTypedField(el) {
    if (el instanceof HTMLTextAreaElement) return true;
    if (el instanceof HTMLInputElement) return TYPED.has(el.type);
    return el instanceof HTMLElement && el.isContentEditable;
  }

  /** @param {Element} el */
  function valueOf(el) {
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) return el.value;
    return el.textContent || "";
  }

  /** @param {Element} el @param {string} role @param {string} name @param {Omit<RecordedAction, "role"|"name"|"local_ref"|"doc_id"|"box">} what */
  function report(el, role, name, what) {
    const r = el.getBoundingClientRect();
    /** @type {RecordedAction} */
    const step = { ...what, role, name, local_ref: core?.refIfAny(el) ?? null, doc_id: core?.docId || "",
      box: [r.x, r.y, r.width, r.height].map((v) => Math.round(v)) };
    chrome.runtime.sendMessage({ kind: KIND?.RECORD_STEP, step }).catch(() => {});
  }

  /** Report a typed field's value once (its final value, or that a secret was typed). @param {Element} el */
  function reportField(el) {
    const described = roleName(el);
    if (!described) return;
    const secret = isSecretField(el) || Boolean(core?.typedSecret?.(el));
    const value = valueOf(el);
    // A secret field is remembered only as holding something or not: its value stays in the field.
    const seen = secret ? `secret:${value.length > 0}` : `value:${value}`;
    if (reported.get(el) === seen) return;
    reported.set(el, seen);
    report(el, described.role, described.name, secret ? { action: "fill", secret: true } : { action: "fill", value });
  }

  /**
   * Enter in a field clicks its form's default button (implicit submission) with the focus still in
   * the field: that click is the Enter, already a step. A person's own click moves the focus, and a
   * key pressed on a focused button leaves the focus on it.
   * @param {MouseEvent} event @param {Element} el
   */
  function implicitSubmit(event, el) {
    const focused = document.activeElement;
    return event.detail === 0 && focused !== null && focused !== el && isTypedField(focused)
      && "form" in focused && "form" in el && focused.form !== null && focused.form === el.form;
  }

  /**
   * Report what the user marked as the answer: the element's text as the page shows it, or the
   * text selected (then the element is the one holding the selection).
   * @param {Element} el @param {string} text
   */
  function reportAnswer(el, text) {
    const words = text.replace(/\s+/g, " ").trim();
    if (!words) return false;
    let holder = /** @type {Element|null} */ (el);
    let described = null;
    while (holder && !(described = roleName(holder))) holder = holder.parentElement;
    report(holder || el, described?.role || "text", described?.name || "", { action: "answer", text: words });
    return true;
  }

  /** The text selected in this frame, and the element holding it; null when nothing is selected. */
  function selected() {
    const selection = document.getSelection();
    const text = selection ? selection.toString() : "";
    if (!selection || !text.trim() || selection.rangeCount === 0) return null;
    const node = selection.getRangeAt(0).commonAncestorContainer;
    const el = node instanceof Element ? node : node.parentElement;
    return el ? { el, text } : null;
  }

  document.addEventListener("click", (event) => {
    if (!armed || !event.isTrusted) return;
    if (marking) {
      // The click that marks the answer is the user's pointing, not an action of the task: the page never sees it.
      event.preventDefault();
      event.stopImmediatePropagation();
      const target = event.composedPath()[0];
      if (target instanceof Element && reportAnswer(target, target instanceof HTMLElement ? target.innerText : target.textContent || "")) marking = false;
      return;
    }
    const hit = operated(event);
    if (!hit || FOCUS_ONLY.has(hit.role) || hit.el instanceof HTMLOptionElement) return;
    if (implicitSubmit(event, hit.el)) return;
    report(hit.el, hit.role, hit.name, { action: "click" });
  }, true);

  document.addEventListener("change", (event) => {
    if (!armed || !event.isTrusted) return;
    const el = /** @type {Element} */ (event.composedPath()[0]);
    if (el instanceof HTMLSelectElement) {
      const described = roleName(el);
      const chosen = el.selectedOptions[0];
      if (described && chosen) report(el, described.role, described.name, { action: "select", value: (chosen.label || chosen.text).trim() });
      return;
    }
    if (el instanceof Element && isTypedField(el)) reportField(el);
  }, true);

  document.addEventListener("keydown", (event) => {
    if (!armed || !event.isTrusted || event.key !== "Enter" || event.isComposing) return;
    const el = /** @type {Element} */ (event.composedPath()[0]);
    if (!(el instanceof Element) || !isTypedField(el) || el instanceof HTMLTextAreaElement) return;
    // Enter submits before the field's change event: its value is the step before the key.
    reportField(el);
    const described = roleName(el);
    if (described) report(el, described.role, described.name, { action: "press", key: "Enter" });
  }, true);

  /** Arm this frame's recorder, and tell the page-world dialog script whether the user answers its dialogs. @param {boolean} on */
  function setArmed(on) {
    armed = on;
    document.dispatchEvent(new CustomEvent("waymark:record-dialogs", { detail: on ? "on" : "off" }));
  }

  /** The fields of a dialog the page-world script told of, checked: it comes from the page's world. @param {unknown} detail */
  function toldDialog(detail) {
    let told;
    try {
      told = JSON.parse(String(detail));
    } catch {
      return null;
    }
    if (!told || !["alert", "confirm", "prompt"].includes(told.type) || !["open", "answered"].includes(told.phase)) return null;
    return { phase: String(told.phase), type: String(told.type), message: String(told.message ?? "").slice(0, 500), accepted: told.accepted !== false,
      ...(typeof told.text === "string" ? { text: told.text.slice(0, 2000) } : {}) };
  }

  document.addEventListener("waymark:recorded-dialog", (event) => {
    if (!armed) return;
    const dialog = toldDialog(/** @type {CustomEvent} */ (event).detail);
    if (dialog) chrome.runtime.sendMessage({ kind: KIND?.RECORD_DIALOG, dialog }).catch(() => {});
  });

  core.handle(KIND.RECORD_ARM, (/** @type {{on: boolean}} */ msg) => {
    setArmed(Boolean(msg.on));
    return { armed };
  });
  core.handle(KIND.RECORD_MARK, (/** @type {{on: boolean}} */ msg) => {
    if (!armed || !msg.on) {
      marking = false;
      return { marked: false };
    }
    const chosen = selected();
    if (chosen && reportAnswer(chosen.el, chosen.text)) return { marked: true };
    marking = true;
    return { marked: false };
  });
  // A document loaded while its tab is recorded (a navigation, a new tab the recorded one opened) arms itself.
  chrome.runtime.sendMessage({ kind: KIND.RECORD_ASK }).then((answer) => { if (answer?.on) setArmed(true); }, () => {});
})();
