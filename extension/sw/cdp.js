// @ts-check
/**
 * Trusted input through `chrome.debugger` (the CDP Input domain) and JavaScript dialogs through
 * the Page domain. One debugger session per tab, attached lazily on the first action that needs
 * it, detached after a quiet spell, when the tab closes, or when asked. When attaching fails
 * (another debugger holds the tab, a restricted page) callers fall back to synthetic events.
 */
import { errorCode, errorMessage } from "../shared/errors.js";
import { WaymarkError } from "./native.js";
import { heldDialog, hold, ownPageDialogs, record, release, untilHeld } from "./dialogs.js";
import { keystrokes, layoutKey } from "./keyboard.js";
import { actedInTab } from "./downloads.js";

const PROTOCOL_VERSION = "1.3";
/** Detach after this long without an action, so a finished run does not keep the tab instrumented. */
let idleDetachMs = 30_000;

/** How long the debugger stays attached without an action (tests shorten it). @param {number} ms */
export function setIdleDetachMs(ms) {
  idleDetachMs = ms;
}

/** CDP modifier bits. */
const MODIFIER_BITS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };
/** The `location` of a numeric keypad key (KeyboardEvent.DOM_KEY_LOCATION_NUMPAD). */
const KEYPAD_LOCATION = 3;

/**
 * @typedef {"accept"|"dismiss"|"ask"} DialogPolicy  ask: hold a confirm or prompt open for answer_dialog
 * @typedef {{ready: Promise<void>, policy: DialogPolicy, idle: ReturnType<typeof setTimeout>|null, autoAttach?: Promise<void>}} Session
 */

/** @type {Map<number, Session>} */
const sessions = new Map();
/**
 * The child protocol sessions of each tab's debugger session: one per out-of-process (cross-origin)
 * iframe, whose file chooser and DOM the tab's own session does not reach.
 * @type {Map<number, Set<string>>}
 */
const children = new Map();
/**
 * Tabs whose current document stopped taking trusted input, with when that was noticed. Chrome
 * can leave a document that replaced another mid-input unable to answer any Input command (from
 * any client, until it is replaced in turn); its actions go the synthetic way instead of hanging.
 * @type {Map<number, number>}
 */
const wedged = new Map();
/** How long the first pointer event of an action may go unanswered before the page counts as not taking input. */
const PROBE_MS = 3000;
/**
 * The documents of each tab that have answered trusted input, as `frameId:docId`. Chrome
 * answers a pointer move only with the next rendered frame, a press at once: a click in a
 * document known to answer sends its move and press together and saves that frame.
 * @type {Map<number, Set<string>>}
 */
const answering = new Map();
/** Tabs where the user cancelled debugging from Chrome's infobar: never re-attach there. */
const refused = new Set();
const DETACH_WAIT_MS = 1000;
/** @type {Map<number, Promise<void>>} detaches in progress, per tab */
const detaching = new Map();

/**
 * Attach the debugger to a tab (once) and enable dialog events.
 * @param {number} tabId
 * @returns {Promise<void>} rejects with `debugger_unavailable` when Chrome refuses
 */
export async function attach(tabId) {
  // A new session only once the old one is gone; a detach stuck behind a stranded command is
  // not waited for long (attaching then fails and the action takes the synthetic path).
  const pending = detaching.get(tabId);
  if (pending) await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, DETACH_WAIT_MS))]);
  if (refused.has(tabId)) throw new WaymarkError("debugger_unavailable", `the user cancelled debugging for tab ${tabId}: input there is synthetic`);
  if (wedged.has(tabId)) throw new WaymarkError("debugger_unavailable", `Chrome stopped delivering trusted input to this page of tab ${tabId} (input was interrupted by a navigation): input is synthetic until the page changes`);
  let session = sessions.get(tabId);
  if (!session) {
    const created = /** @type {Session} */ ({ ready: Promise.resolve(), policy: "accept", idle: null });
    created.ready = (async () => {
      try {
        await chrome.debugger.attach({ tabId }, PROTOCOL_VERSION);
      } catch (e) {
        throw new WaymarkError("debugger_unavailable", `the debugger cannot attach to tab ${tabId}: ${errorMessage(e)}`);
      }
      actedInTab(tabId);
      await chrome.debugger.sendCommand({ tabId }, "Page.enable");
      // From here the debugger answers the tab's dialogs, not the page-world script.
      await ownPageDialogs(tabId, true);
    })();
    sessions.set(tabId, created);
    session = created;
    session.ready.catch(() => sessions.get(tabId) === created && sessions.delete(tabId));
  }
  await session.ready;
  touch(tabId);
}

/** @returns {number[]} the tabs the debugger is attached to now */
export function attachedTabs() {
  return [...sessions.keys()];
}

/** @param {number} tabId */
export function isAttached(tabId) {
  return sessions.has(tabId);
}

/** @param {number} tabId */
function touch(tabId) {
  const session = sessions.get(tabId);
  if (!session) return;
  if (session.idle) clearTimeout(session.idle);
  // A dialog held for an answer keeps the debugger: detached, nobody could answer it.
  session.idle = setTimeout(() => (heldDialog(tabId) ? touch(tabId) : void detach(tabId)), idleDetachMs);
}

/**
 * Detach from a tab if attached; harmless otherwise.
 * @param {number} tabId
 */
export async function detach(tabId) {
  const session = sessions.get(tabId);
  if (!session) return;
  sessions.delete(tabId);
  children.delete(tabId);
  if (session.idle) clearTimeout(session.idle);
  const done = (async () => {
    try {
      await session.ready;
      if (heldDialog(tabId)) await answerDialog(tabId, false).catch(() => {});
      // Handed back before the debugger goes: a dialog opened after this is answered in the page.
      await ownPageDialogs(tabId, false);
      await chrome.debugger.detach({ tabId });
    } catch {
      // Already detached (tab closed, user cancelled the infobar): nothing to undo.
    }
  })();
  detaching.set(tabId, done);
  await done;
  if (detaching.get(tabId) === done) detaching.delete(tabId);
}

/** Detach from every tab (end of a run). */
export async function detachAll() {
  await Promise.all([...sessions.keys()].map(detach));
}

/**
 * How dialogs the page opens are answered from now on.
 * @param {number} tabId @param {DialogPolicy} policy
 */
export function setDialogPolicy(tabId, policy) {
  const session = sessions.get(tabId);
  if (session) session.policy = policy;
}

/**
 * Answer the dialog the tab's page waits on (OK or Cancel; a prompt's text, else its default).
 * @param {number} tabId @param {boolean} accept @param {string|null=} text
 * @returns {Promise<import("./dialogs.js").DialogRecord>} the dialog, as answered
 */
export async function answerDialog(tabId, accept, text) {
  const open = heldDialog(tabId);
  if (!open) throw new WaymarkError("no_dialog", "no JavaScript dialog is open in this tab: take a snapshot and act on the page");
  const { record: asked, sessionId } = open;
  const promptText = accept && asked.type === "prompt" ? (text ?? asked.default_prompt ?? "") : undefined;
  try {
    await chrome.debugger.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, "Page.handleJavaScriptDialog", { accept, promptText });
  } catch (e) {
    // Closed by someone else (another debugger client, the page navigating away): this answer
    // was not the one the page got, so it is not recorded as if it were.
    if (/no dialog is showing/i.test(errorMessage(e))) throw new WaymarkError("no_dialog", "the dialog was closed before this answer reached it (by another debugger client or the page leaving): take a snapshot to see what the page did");
    throw new WaymarkError("debugger_unavailable", `the dialog could not be answered: ${errorMessage(e)}`);
  } finally {
    release(tabId);
  }
  const answered = { ...asked, handled: accept ? /** @type {const} */ ("accept") : /** @type {const} */ ("dismiss"), at: Date.now(),
    ...(promptText !== undefined ? { text: promptText } : {}) };
  record(tabId, answered);
  return answered;
}

/**
 * Move the pointer to where an action is about to act, bounded: a page whose document does not
 * answer pointer input is marked (trusted input there would hang every later action) and the
 * caller takes the synthetic path. Only a move is left waiting in a page that does not answer,
 * so the synthetic action that follows is the only press. `doc` (see answers) is noted as
 * answering when the move is answered.
 * @param {number} tabId @param {number} x @param {number} y @param {string=} doc
 */
export async function probe(tabId, x, y, doc) {
  const moved = send(tabId, "Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
  await answeredInTime(tabId, moved, `the page of tab ${tabId} did not take trusted input within ${PROBE_MS} ms`);
  if (doc) {
    if (!answering.has(tabId)) answering.set(tabId, new Set());
    /** @type {Set<string>} */ (answering.get(tabId)).add(doc);
  }
}

/**
 * Wait for input commands the page must answer, at most PROBE_MS; a page that does not answer
 * in time stops being trusted (see stopTrusting) and the wait fails as `input_stalled`.
 * @param {number} tabId @param {Promise<unknown>} sent @param {string} message  the error's
 */
async function answeredInTime(tabId, sent, message) {
  sent.catch(() => {}); // settled later when the race is lost
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  const stalled = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new WaymarkError("input_stalled", message)), PROBE_MS);
  });
  try {
    await Promise.race([sent, stalled]);
  } catch (e) {
    if (errorCode(e) === "input_stalled") stopTrusting(tabId);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a document (`frameId:docId`) of the tab has answered trusted input (see probe).
 * @param {number} tabId @param {string} doc
 */
export function answers(tabId, doc) {
  return Boolean(answering.get(tabId)?.has(doc)) && !wedged.has(tabId);
}

/** The tab's document stopped answering input: synthetic input until it changes. @param {number} tabId */
function stopTrusting(tabId) {
  wedged.set(tabId, Date.now());
  answering.delete(tabId);
  void detach(tabId); // ends the stranded command
}

/**
 * A CDP command's result is whatever the protocol defines for `method` (no types of it are bundled).
 * @param {number} tabId @param {string} method @param {Record<string, unknown>=} params
 * @returns {Promise<any>}
 */
export async function send(tabId, method, params) {
  await attach(tabId);
  const session = sessions.get(tabId);
  try {
    const command = chrome.debugger.sendCommand({ tabId }, method, params);
    return await (method.startsWith("Input.") ? untilHeld(tabId, command) : command);
  } catch (e) {
    const message = errorMessage(e);
    // Chrome gave up on an input command the page never answered: the page is not taking input.
    if (method.startsWith("Input.") && /detached while handling/i.test(message)) wedged.set(tabId, Date.now());
    if (!/not attached/i.test(message)) throw new WaymarkError("debugger_unavailable", `${method} failed: ${message}`);
  }
  // The session ended under us (another caller of chrome.debugger.detach, DevTools) without an
  // onDetach event: forget it (once, even for pipelined commands) and attach afresh.
  if (sessions.get(tabId) === session) {
    if (session?.idle) clearTimeout(session.idle);
    sessions.delete(tabId);
    children.delete(tabId);
  }
  await attach(tabId);
  try {
    return await chrome.debugger.sendCommand({ tabId }, method, params);
  } catch (e) {
    throw new WaymarkError("debugger_unavailable", `${method} failed: ${errorMessage(e)}`);
  }
}

/**
 * The child sessions of a tab: the out-of-process iframes, attached to (flat sessions) on the first
 * call of each debugger session. Chrome reports the frames there already before it answers.
 * @param {number} tabId @returns {Promise<string[]>}
 */
export async function frameSessions(tabId) {
  await attach(tabId);
  const session = /** @type {Session} */ (sessions.get(tabId));
  if (!session.autoAttach) {
    session.autoAttach = send(tabId, "Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
    session.autoAttach.catch(() => { if (sessions.get(tabId) === session) delete session.autoAttach; });
  }
  try {
    await session.autoAttach;
  } catch {
    return []; // Chrome refused: only the tab's own session (its in-process frames) is reachable
  }
  return [...(children.get(tabId) || [])];
}

/**
 * A CDP command to one child session of a tab (see frameSessions).
 * @param {number} tabId @param {string} sessionId @param {string} method @param {Record<string, unknown>=} params
 * @returns {Promise<any>}
 */
export async function sendToSession(tabId, sessionId, method, params) {
  try {
    return await chrome.debugger.sendCommand({ tabId, sessionId }, method, params);
  } catch (e) {
    throw new WaymarkError("debugger_unavailable", `${method} in a frame's session failed: ${errorMessage(e)}`);
  }
}

/** CDP's `buttons` bit of each mouse button. */
const BUTTON_BITS = { left: 1, right: 2 };

/**
 * Trusted click (or double click) at a point in the tab's top-level viewport (CSS pixels).
 * `pointerThere`: the pointer was just moved to this point (by probe()), so no move is sent
 * again; otherwise the move goes with the press (see answers) and the whole click is bounded
 * like a probe: a page that stops answering it fails the action as `input_stalled` and is not
 * pressed again by other means, since the press waiting there may still land.
 * @param {number} tabId @param {number} x @param {number} y
 * @param {{clickCount?: number, modifiers?: number, pointerThere?: boolean, button?: "left"|"right"}=} opts
 */
export async function click(tabId, x, y, opts = {}) {
  const count = opts.clickCount ?? 1;
  const modifiers = opts.modifiers ?? 0;
  const button = opts.button ?? "left";
  await attach(tabId);
  /** @type {Record<string, unknown>[]} */
  const events = opts.pointerThere ? [] : [{ type: "mouseMoved", x, y, modifiers }];
  for (let n = 1; n <= count; n++) {
    events.push({ type: "mousePressed", x, y, button, buttons: BUTTON_BITS[button], clickCount: n, modifiers });
    events.push({ type: "mouseReleased", x, y, button, buttons: 0, clickCount: n, modifiers });
  }
  // One session processes commands in order: pipelining keeps the sequence and saves round trips.
  const sent = Promise.all(events.map((event) => send(tabId, "Input.dispatchMouseEvent", event)));
  if (opts.pointerThere) {
    await sent;
    return;
  }
  await answeredInTime(tabId, sent, `the page of tab ${tabId} did not take the click within ${PROBE_MS} ms (a busy script): it may still land when the page answers, so it was not sent again; take a snapshot before acting again`);
}

/**
 * A trusted turn of the mouse wheel at a point of the tab's top-level viewport (CSS pixels): the
 * scroller under the pointer scrolls (Chrome picks it and chains to the next at an edge) and the
 * page's `wheel` listeners see the event. Deltas are CSS pixels, positive right and down.
 * @param {number} tabId @param {number} x @param {number} y @param {number} deltaX @param {number} deltaY
 */
export async function wheel(tabId, x, y, deltaX, deltaY) {
  await send(tabId, "Input.dispatchMouseEvent", { type: "mouseWheel", x, y, deltaX, deltaY, pointerType: "mouse" });
}

/** Intermediate pointer moves of a drag after the first: enough for pages that follow the pointer. */
const DRAG_STEPS = 8;
/** How far the first move of a drag goes at least (Chrome starts a drag past a few pixels). */
const DRAG_START_PX = 8;
/** How long Chrome may take to hand over an HTML5 drag it intercepted once the page started one. */
const DRAG_INTERCEPT_MS = 2000;

/**
 * A trusted drag from one point of the top-level viewport to another (CSS pixels), the pointer
 * already at `from` (probe()): press, a first move, then either the rest of the moves and the
 * release (pages that follow mouse events: sortable lists, sliders), or, when the first move
 * started an HTML5 drag (`started` asks the page), that drag carried by Chrome's drag
 * interception: its data is handed over instead of an OS drag starting (which never ends in a
 * headless or unfocused browser), and dragEnter, dragOver and drop are dispatched with it.
 * @param {number} tabId @param {{x: number, y: number}} from @param {{x: number, y: number}} to
 * @param {() => Promise<boolean>} started  whether the page began an HTML5 drag it did not cancel
 * @param {() => Promise<void>} atRelease  called with the pointer over `to`, just before the drop
 * @returns {Promise<"mouse"|"html5">} which kind of drag it was
 */
export async function drag(tabId, from, to, started, atRelease) {
  const distance = Math.hypot(to.x - from.x, to.y - from.y);
  const first = distance > 0 ? Math.min(1, Math.max(DRAG_START_PX / distance, 1 / DRAG_STEPS)) : 1;
  const at = (/** @type {number} */ f) => ({ x: from.x + (to.x - from.x) * f, y: from.y + (to.y - from.y) * f });
  const steps = [first, ...Array.from({ length: DRAG_STEPS }, (_, i) => (i + 1) / DRAG_STEPS).filter((f) => f > first)];
  const held = { button: "left", buttons: 1 };
  await send(tabId, "Input.dispatchMouseEvent", { type: "mousePressed", ...from, ...held, clickCount: 1 });
  /** @type {(data: unknown) => void} */
  let handOver = () => {};
  const intercepted = new Promise((resolve) => { handOver = resolve; });
  /** @type {(source: chrome.debugger.Debuggee, method: string, params?: object) => void} */
  const listener = (source, method, params) => {
    if (source.tabId === tabId && method === "Input.dragIntercepted") handOver(/** @type {{data?: unknown}} */ (params).data);
  };
  chrome.debugger.onEvent.addListener(listener);
  /** @type {unknown} */
  let data = null;
  try {
    await send(tabId, "Input.setInterceptDrags", { enabled: true });
    await send(tabId, "Input.dispatchMouseEvent", { type: "mouseMoved", ...at(first), ...held });
    if (await started()) {
      /** @type {ReturnType<typeof setTimeout>|undefined} */
      let timer;
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new WaymarkError("drag_failed", `the page started an HTML5 drag but Chrome did not hand it over within ${DRAG_INTERCEPT_MS} ms`)), DRAG_INTERCEPT_MS);
      });
      data = await Promise.race([intercepted, late]).finally(() => clearTimeout(timer));
    }
  } finally {
    chrome.debugger.onEvent.removeListener(listener);
    await send(tabId, "Input.setInterceptDrags", { enabled: false }).catch(() => {});
  }
  // One session processes commands in order: the moves are pipelined, as a click's events are.
  if (data) {
    await send(tabId, "Input.dispatchDragEvent", { type: "dragEnter", ...at(first), data });
    await Promise.all(steps.slice(1).map((f) => send(tabId, "Input.dispatchDragEvent", { type: "dragOver", ...at(f), data })));
    await atRelease();
    await send(tabId, "Input.dispatchDragEvent", { type: "drop", ...to, data });
  } else {
    await Promise.all(steps.slice(1).map((f) => send(tabId, "Input.dispatchMouseEvent", { type: "mouseMoved", ...at(f), ...held })));
    await atRelease();
  }
  await send(tabId, "Input.dispatchMouseEvent", { type: "mouseReleased", ...to, button: "left", buttons: 0, clickCount: 1 });
  return data ? "html5" : "mouse";
}

/** @param {number} tabId @param {number} x @param {number} y */
export async function hover(tabId, x, y) {
  await send(tabId, "Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
}

/**
 * Insert text into the focused element as an IME commit would (beforeinput/input fire, trusted).
 * @param {number} tabId @param {string} text
 */
export async function insertText(tabId, text) {
  await unlessNavigated(tabId, "Input.insertText", send(tabId, "Input.insertText", { text }));
}

/**
 * A command that loses to a main-frame navigation commit: text meant for one page is never typed
 * into the next, and a command stranded on the old page's renderer (it hangs until Chrome reports
 * "Detached while handling command", about 30 s later) ends at once as `navigated`, its session
 * replaced by a fresh one.
 * @template T
 * @param {number} tabId @param {string} method @param {Promise<T>} command
 * @returns {Promise<T>}
 */
function unlessNavigated(tabId, method, command) {
  /** @type {(details: chrome.webNavigation.WebNavigationTransitionCallbackDetails) => void} */
  let onCommitted = () => {};
  /** @type {Promise<never>} */
  const navigated = new Promise((_, reject) => {
    onCommitted = (details) => {
      if (details.tabId === tabId && details.frameId === 0) {
        // The stranded command would hold up every later one on this session: start a new one.
        void detach(tabId);
        reject(new WaymarkError("navigated", `the page navigated while ${method} was in flight: nothing was typed into the new page`));
      }
    };
    chrome.webNavigation.onCommitted.addListener(onCommitted);
  });
  command.catch(() => {}); // settled later, after the race is decided
  return Promise.race([command, navigated]).finally(() => chrome.webNavigation.onCommitted.removeListener(onCommitted));
}

/**
 * @typedef {import("./keyboard.js").KeyDef} KeyDef
 * @typedef {{key: KeyDef, modifiers: number, modifierKeys: KeyDef[]}} KeyCombo
 */

/** Spellings people (and models) use for the same key. */
const ALIASES = {
  ctrl: "Control", control: "Control", cmd: "Meta", command: "Meta", meta: "Meta", win: "Meta", super: "Meta",
  option: "Alt", alt: "Alt", shift: "Shift", esc: "Escape", escape: "Escape", return: "Enter", enter: "Enter",
  up: "ArrowUp", down: "ArrowDown", left: "ArrowLeft", right: "ArrowRight", del: "Delete", space: "Space",
  spacebar: "Space", pgup: "PageUp", pgdn: "PageDown",
  // The platform's shortcut modifier: Command on macOS, Control elsewhere.
  controlormeta: /Mac/i.test(globalThis.navigator?.platform || "") ? "Meta" : "Control",
};

/**
 * One key by name or character: the US layout's (keyboard.js), or for a single character no key
 * of it types, that character with no code.
 * @param {string} name @returns {KeyDef|null}
 */
function keyDef(name) {
  const canonical = ALIASES[/** @type {keyof typeof ALIASES} */ (name.toLowerCase())] || name;
  const known = layoutKey(canonical);
  if (known) return { key: known.key, code: known.code, keyCode: known.keyCode, text: known.text, location: known.location };
  if ([...name].length !== 1) return null;
  return { key: name, code: "", keyCode: 0, text: name };
}

/**
 * Parse "Enter", "Control+A", "Shift+Tab", "Control+Shift+K", "+" into one key and modifiers.
 * @param {string} combo @returns {KeyCombo}
 */
export function parseCombo(combo) {
  const parts = combo === "+" ? ["+"] : combo.split("+").map((p) => p.trim());
  if (parts.some((p) => !p)) {
    // "Control++" means Control and the plus key.
    if (combo.endsWith("++")) parts.splice(parts.length - 2, 2, "+");
    else throw new WaymarkError("bad_action", `cannot read the key combo ${JSON.stringify(combo)}`);
  }
  const last = /** @type {string} */ (parts.pop());
  let modifiers = 0;
  /** @type {KeyDef[]} */
  const modifierKeys = [];
  for (const part of parts) {
    const def = keyDef(part);
    const bit = def && MODIFIER_BITS[/** @type {keyof typeof MODIFIER_BITS} */ (def.key)];
    if (!def || !bit) throw new WaymarkError("bad_action", `${JSON.stringify(part)} is not a modifier key (Control, Shift, Alt, Meta)`);
    modifiers |= bit;
    modifierKeys.push(def);
  }
  let key = keyDef(last);
  if (!key) throw new WaymarkError("bad_action", `unknown key ${JSON.stringify(last)}`);
  if (/^[a-z]$/i.test(key.key)) {
    // Letters: Shift makes them capitals; a shortcut (Control+A) reports the plain letter, as a keyboard does.
    if (modifiers & MODIFIER_BITS.Shift) key = { ...key, key: key.key.toUpperCase(), text: key.key.toUpperCase() };
    else if (modifiers) key = { ...key, key: key.key.toLowerCase(), text: key.key.toLowerCase() };
  }
  // With Control, Alt or Meta held a key is a shortcut: it types nothing.
  if (modifiers & (MODIFIER_BITS.Control | MODIFIER_BITS.Alt | MODIFIER_BITS.Meta)) key = { ...key, text: undefined };
  return { key, modifiers, modifierKeys };
}

/**
 * Press a key combo as trusted key events to the focused element.
 * @param {number} tabId @param {KeyCombo} combo
 */
export async function press(tabId, combo) {
  let held = 0;
  for (const mod of combo.modifierKeys) {
    held |= MODIFIER_BITS[/** @type {keyof typeof MODIFIER_BITS} */ (mod.key)];
    await send(tabId, "Input.dispatchKeyEvent", keyEvent("rawKeyDown", mod, held));
  }
  const { key } = combo;
  await send(tabId, "Input.dispatchKeyEvent", keyEvent(key.text ? "keyDown" : "rawKeyDown", key, combo.modifiers));
  await send(tabId, "Input.dispatchKeyEvent", keyEvent("keyUp", key, combo.modifiers));
  for (const mod of [...combo.modifierKeys].reverse()) {
    held &= ~MODIFIER_BITS[/** @type {keyof typeof MODIFIER_BITS} */ (mod.key)];
    await send(tabId, "Input.dispatchKeyEvent", keyEvent("keyUp", mod, held));
  }
}

/**
 * One Input.dispatchKeyEvent's parameters, as Playwright's Chromium keyboard sends them.
 * @param {string} type @param {KeyDef} def @param {number} modifiers
 */
function keyEvent(type, def, modifiers) {
  /** @type {Record<string, unknown>} */
  const event = { type, key: def.key, code: def.code, windowsVirtualKeyCode: def.keyCode, modifiers, location: def.location || 0, isKeypad: def.location === KEYPAD_LOCATION };
  if (type === "keyDown" && def.text) {
    event.text = def.text;
    event.unmodifiedText = def.text;
  }
  return event;
}

/**
 * Type text into the focused element as a person does, key by key (see keyboard.js keystrokes):
 * each key is a trusted keyDown (with its text: keydown, keypress, beforeinput, input) and keyUp;
 * what no key types is inserted as an IME commit. `stop` is asked before each keystroke and
 * throws to end the typing (the page began to leave); a keystroke a navigation overtakes ends it
 * as `navigated` (unlessNavigated), so the rest is never typed into the next page.
 * @param {number} tabId @param {string} text @param {{multiline: boolean, stop: () => void}} field
 * @returns {Promise<{keys: number, inserted: number}>} characters typed by key, and inserted
 */
export async function typeText(tabId, text, field) {
  let keys = 0;
  let inserted = 0;
  for (const stroke of keystrokes(text, field)) {
    field.stop();
    if ("insert" in stroke) {
      await insertText(tabId, stroke.insert);
      inserted += [...stroke.insert].length;
      continue;
    }
    const down = send(tabId, "Input.dispatchKeyEvent", keyEvent(stroke.key.text ? "keyDown" : "rawKeyDown", stroke.key, 0));
    const up = send(tabId, "Input.dispatchKeyEvent", keyEvent("keyUp", stroke.key, 0));
    // One session processes commands in order: a key's down and up go together, as a click's events do.
    await unlessNavigated(tabId, "Input.dispatchKeyEvent", Promise.all([down, up]));
    keys += 1;
  }
  return { keys, inserted };
}

/**
 * The next `method` event of a tab's session, within `timeoutMs` (rejects with `timeout`). Ask
 * before causing the event; `cancel` ends the wait when the cause failed. `anySession`: the event
 * may come from a child session too (its params then carry `sessionId`, where to answer it).
 * @param {number} tabId @param {string} method @param {number} timeoutMs @param {string} what  for the timeout's message
 * @param {{anySession?: boolean}=} opts
 * @returns {{event: Promise<any>, cancel: () => void}}
 */
export function nextEvent(tabId, method, timeoutMs, what, opts = {}) {
  /** @type {(source: chrome.debugger.DebuggerSession, m: string, params?: object) => void} */
  let listener = () => {};
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  /** @type {(e: Error) => void} */
  let fail = () => {};
  const event = new Promise((resolve, reject) => {
    fail = reject;
    listener = (source, m, params) => {
      if (source.tabId !== tabId || m !== method) return;
      if (source.sessionId && !opts.anySession) return;
      resolve(source.sessionId ? { ...params, sessionId: source.sessionId } : params || {});
    };
    chrome.debugger.onEvent.addListener(listener);
    timer = setTimeout(() => reject(new WaymarkError("timeout", what)), timeoutMs);
  }).finally(() => {
    clearTimeout(timer);
    chrome.debugger.onEvent.removeListener(listener);
  });
  event.catch(() => {}); // a cancelled wait has no reader
  return { event, cancel: () => fail(new WaymarkError("cancelled", "the wait was cancelled")) };
}

// The child sessions of each tab, as Chrome attaches and detaches them.
chrome.debugger.onEvent.addListener((source, method, params) => {
  if (source.tabId === undefined || source.sessionId) return;
  const p = /** @type {{sessionId?: string, targetInfo?: {type?: string}}} */ (params || {});
  if (!p.sessionId) return;
  if (method === "Target.attachedToTarget" && p.targetInfo?.type === "iframe") {
    const known = children.get(source.tabId) || new Set();
    children.set(source.tabId, known.add(p.sessionId));
  } else if (method === "Target.detachedFromTarget") {
    children.get(source.tabId)?.delete(p.sessionId);
  }
});

// Dialogs: answered at once by the tab's policy, so a page never stays blocked on one, or (ask)
// a confirm or prompt held open for the executor's answer_dialog (see dispatch.js).
chrome.debugger.onEvent.addListener((source, method, params) => {
  if (method !== "Page.javascriptDialogOpening" || source.tabId === undefined) return;
  const tabId = source.tabId;
  const session = sessions.get(tabId);
  // Page.javascriptDialogOpening's parameters, as the protocol defines them.
  const p = /** @type {{type: "alert"|"confirm"|"prompt"|"beforeunload", message: string, url: string, defaultPrompt?: string}} */ (params || {});
  const policy = session?.policy ?? "accept";
  const seen = { type: p.type, message: String(p.message || "").slice(0, 500), url: String(p.url || ""), by: /** @type {const} */ ("debugger"), at: Date.now(),
    ...(p.type === "prompt" ? { default_prompt: String(p.defaultPrompt || "").slice(0, 500) } : {}) };
  if (policy === "ask" && (p.type === "confirm" || p.type === "prompt")) {
    const open = { ...seen, handled: /** @type {const} */ ("pending") };
    record(tabId, open);
    hold(tabId, open, source.sessionId);
    return;
  }
  // An alert has one button: "dismiss" and "accept" both just close it. Asked, a leave-page
  // prompt is accepted: leaving is what the action that raised it asked for.
  const accept = policy !== "dismiss" || p.type === "alert";
  record(tabId, { ...seen, handled: accept ? "accept" : "dismiss" });
  // Answered in the session that reported it (a cross-origin frame's own, once its Page domain is on).
  chrome.debugger.sendCommand(source.sessionId ? { tabId, sessionId: source.sessionId } : { tabId }, "Page.handleJavaScriptDialog", { accept, promptText: accept ? String(p.defaultPrompt || "") : undefined }).catch(() => {
    // Another client (DevTools, a test driver) answered first: the page is unblocked either way.
  });
});

chrome.debugger.onDetach.addListener((source, reason) => {
  if (source.tabId === undefined) return;
  if (sessions.has(source.tabId)) void ownPageDialogs(source.tabId, false);
  release(source.tabId); // nobody can answer it now
  if (reason === "canceled_by_user" && sessions.has(source.tabId)) refused.add(source.tabId);
  children.delete(source.tabId);
  const session = sessions.get(source.tabId);
  if (session?.idle) clearTimeout(session.idle);
  sessions.delete(source.tabId);
});

// A new document in the tab takes input again.
chrome.webNavigation.onCommitted.addListener((details) => {
  if (details.frameId === 0) answering.delete(details.tabId);
  const since = wedged.get(details.tabId);
  if (details.frameId === 0 && since !== undefined && details.timeStamp > since) wedged.delete(details.tabId);
});

chrome.tabs.onRemoved.addListener((tabId) => {
  refused.delete(tabId);
  wedged.delete(tabId);
  answering.delete(tabId);
  children.delete(tabId);
  const session = sessions.get(tabId);
  if (session?.idle) clearTimeout(session.idle);
  sessions.delete(tabId);
});
