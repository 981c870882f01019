// @ts-check
/**
 * The service worker's half of upload_file, select_text, the clipboard presses (Control+C / X /
 * V) and `select` on custom widgets; the per-frame half is content/forms.js. Handlers get
 * dispatch's steps (`d`: resolving refs, actionability, trusted input) as an argument.
 *
 * Uploads go through Chrome's file chooser, intercepted by the debugger: a debugger client may
 * set an input's files only in answer to a chooser the page opened (DOM.setFileInputFiles with
 * the chooser's backendNodeId), so the input is clicked with a user gesture and the chooser's
 * answer is the files. The paths come from the host (ActRequest.upload_paths), never from the
 * action: the host resolved the file names inside the user's upload folder.
 *
 * The clipboard is the extension's own, in chrome.storage.session: it stays in this browser's
 * memory, never reaches the operating system's clipboard (headless Chromium has none) and is
 * unreadable by pages and content scripts.
 */
import * as cdp from "./cdp.js";
import { ensureInjected, sendToFrame } from "./inject.js";
import { WaymarkError } from "./native.js";
import { errorCode } from "../shared/errors.js";
import { KIND } from "../shared/actions.js";

/**
 * @typedef {import("./dispatch.js").Dispatch} Dispatch
 * @typedef {Parameters<Dispatch["prepare"]>[0]} Ctx
 * @typedef {import("./refs.js").RefTarget} RefTarget
 * @typedef {import("../shared/actions.js").UploadFile} UploadFile
 * @typedef {import("../shared/actions.js").SelectText} SelectText
 * @typedef {import("../shared/actions.js").Select} Select
 */

/** How long a click may take to open the file chooser. */
const CHOOSER_MS = 3000;
/** How long a custom dropdown may take to show its options after the click that opens it. */
const OPEN_MS = 1500;
/** How long a custom dropdown may take to show that it took the option clicked. */
const REACT_MS = 1000;
const CLIPBOARD_KEY = "waymark.clipboard";

// ------------------------------------------------------------------ upload_file

/**
 * Give the file input behind a ref the files the host resolved.
 * @param {Ctx} ctx @param {Dispatch} d @param {UploadFile} a
 */
export async function uploadFile(ctx, d, a) {
  const paths = ctx.req.upload_paths;
  if (!Array.isArray(paths) || paths.length !== a.files.length) {
    throw new WaymarkError("bad_action", "upload_file's files are resolved by the host from the user's upload folder: send the action through the host");
  }
  const t = d.target(ctx.tabId, a.ref);
  ctx.frameId = t.frameId;
  const found = await d.toFrame(ctx, t, { kind: KIND.ACT_UPLOAD_TARGET, count: paths.length });
  try {
    // Not the input itself (a styled button that calls input.click()): it must be clickable.
    const p = found.input ? null : await d.prepare(ctx, t, "pointer");
    if (!(await d.trusted(ctx, p || undefined))) {
      throw new WaymarkError("debugger_unavailable", `uploading needs the debugger, which cannot attach here (${ctx.result.fallback_reason})`);
    }
    ctx.preparedAt = ctx.preparedAt || performance.now();
    // The chooser opens in the frame's own session when the frame is out of process (cross-origin).
    const frames = await cdp.frameSessions(ctx.tabId);
    const intercept = (/** @type {boolean} */ enabled) => Promise.all([
      cdp.send(ctx.tabId, "Page.setInterceptFileChooserDialog", { enabled }),
      // A frame's session reports the chooser only with its Page domain on.
      ...frames.map(async (session) => {
        if (enabled) await cdp.sendToSession(ctx.tabId, session, "Page.enable");
        await cdp.sendToSession(ctx.tabId, session, "Page.setInterceptFileChooserDialog", { enabled });
      }),
    ]);
    await intercept(true);
    try {
      const chooser = cdp.nextEvent(ctx.tabId, "Page.fileChooserOpened", CHOOSER_MS, `clicking ref ${a.ref} opened no file chooser: give the ref of a file input or of the button that opens one`, { anySession: true });
      try {
        if (p) await cdp.click(ctx.tabId, p.x, p.y, { pointerThere: true });
        else await clickMarked(ctx.tabId, frames, found.token);
      } catch (e) {
        chooser.cancel();
        throw e;
      }
      const opened = await chooser.event;
      if (paths.length > 1 && opened.mode !== "selectMultiple") throw new WaymarkError("too_many_files", `the file input of ref ${a.ref} takes one file, not ${paths.length}`);
      const files = { files: paths, backendNodeId: opened.backendNodeId };
      if (opened.sessionId) await cdp.sendToSession(ctx.tabId, opened.sessionId, "DOM.setFileInputFiles", files);
      else await cdp.send(ctx.tabId, "DOM.setFileInputFiles", files);
    } finally {
      await intercept(false).catch(() => {});
    }
  } finally {
    if (found.token) await d.toFrame(ctx, t, { kind: KIND.ACT_UPLOAD_DONE, token: found.token }).catch(() => {});
  }
  ctx.result.files = a.files;
}

/**
 * Click the file input content/forms.js marked, as a user gesture (the input may be hidden
 * behind a styled label or drop zone, where no pointer reaches it). It is looked for in the tab's
 * session, then in each out-of-process frame's session (`frames`).
 * @param {number} tabId @param {string[]} frames @param {string} token
 */
async function clickMarked(tabId, frames, token) {
  for (const session of [undefined, ...frames]) {
    /** @type {(method: string, params?: Record<string, unknown>) => Promise<any>} */
    const send = (method, params) => (session ? cdp.sendToSession(tabId, session, method, params) : cdp.send(tabId, method, params));
    await send("DOM.getDocument", { depth: 0 });
    const search = await send("DOM.performSearch", { query: `[data-waymark-upload="${token}"]` });
    try {
      if (!search.resultCount) continue;
      const { nodeIds } = await send("DOM.getSearchResults", { searchId: search.searchId, fromIndex: 0, toIndex: 1 });
      const { object } = await send("DOM.resolveNode", { nodeId: nodeIds[0] });
      await send("Runtime.callFunctionOn", { objectId: object.objectId, functionDeclaration: "function () { this.click(); }", userGesture: true });
      await send("Runtime.releaseObject", { objectId: object.objectId }).catch(() => {});
      return;
    } finally {
      await send("DOM.discardSearchResults", { searchId: search.searchId }).catch(() => {});
    }
  }
  throw new WaymarkError("not_found", "the marked file input is in no frame the debugger reaches");
}

// ------------------------------------------------------------------ select_text

/**
 * Select a text range inside a ref, by its text.
 * @param {Ctx} ctx @param {Dispatch} d @param {SelectText} a
 */
export async function selectText(ctx, d, a) {
  ctx.result.path = "synthetic"; // the Selection API: no input events stand for it
  const message = { kind: KIND.ACT_SELECT_TEXT, text: a.text, scroll: ctx.req.scroll_into_view !== false };
  /** @type {{selected: string, field: boolean}} */
  let selected;
  if (a.ref) {
    const t = d.target(ctx.tabId, a.ref);
    ctx.frameId = t.frameId;
    selected = await d.toFrame(ctx, t, message);
  } else {
    selected = await inSomeFrame(ctx, message);
  }
  ctx.result.selection = { chars: selected.selected.length, field: selected.field };
}

/**
 * Select text in the first frame whose page has it (top document first); when none has it, the
 * top document's error.
 * @param {Ctx} ctx @param {import("./inject.js").FrameMessage} message
 */
async function inSomeFrame(ctx, message) {
  await ensureInjected(ctx.tabId);
  const ids = ((await chrome.webNavigation.getAllFrames({ tabId: ctx.tabId })) || []).map((f) => f.frameId).sort((x, y) => x - y);
  /** @type {unknown} */
  let first = null;
  for (const frameId of ids) {
    try {
      const selected = await sendToFrame(ctx.tabId, frameId, message);
      ctx.frameId = frameId;
      return selected;
    } catch (e) {
      first = first || e;
    }
  }
  throw first || new WaymarkError("no_such_text", "the page has no frame to select text in");
}

// ------------------------------------------------------------------ clipboard

/**
 * The clipboard operation a key combo stands for (Control or Meta with C, X or V), else null.
 * @param {import("./cdp.js").KeyCombo} combo @returns {"copy"|"cut"|"paste"|null}
 */
export function clipboardOp(combo) {
  const mods = combo.modifiers;
  // Control 2, Meta 4 (the shortcut modifier), Alt 1 (not a clipboard shortcut), Shift 8.
  if (!(mods & 6) || mods & 1) return null;
  const key = combo.key.key.toLowerCase();
  if (key === "v") return "paste"; // Control+Shift+V pastes too (as plain text, which ours always is)
  if (mods & 8) return null;
  return key === "c" ? "copy" : key === "x" ? "cut" : null;
}

/**
 * Copy, cut or paste with the extension's clipboard. Copy takes the selection of the focused
 * frame (or of the ref's frame); paste inserts the text at once, as a person's paste does
 * (trusted insertText: beforeinput and input fire, no keys), into the focused field.
 * @param {Ctx} ctx @param {Dispatch} d @param {"copy"|"cut"|"paste"} op @param {RefTarget|null} t
 */
export async function pressClipboard(ctx, d, op, t) {
  ctx.result.path = "synthetic";
  if (op === "paste") {
    const text = (await chrome.storage.session.get(CLIPBOARD_KEY))[CLIPBOARD_KEY];
    if (typeof text !== "string" || !text) throw new WaymarkError("clipboard_empty", "the clipboard is empty: select text (select_text) and press Control+C first");
    d.notLeaving(ctx, "focusing the field");
    if (await d.trusted(ctx)) {
      await cdp.insertText(ctx.tabId, text);
    } else {
      const edited = await sendToFrame(ctx.tabId, t?.frameId ?? (await focusedFrame(ctx.tabId)), { kind: KIND.ACT_EDIT_SELECTION, op: "insert", text });
      if (!edited.edited) throw new WaymarkError("not_editable", `nothing to paste into: the focus is on ${edited.target}`);
    }
    ctx.result.clipboard = { op, chars: text.length };
    return;
  }
  const found = await selectionIn(ctx.tabId, t ? [t.frameId] : null);
  if (!found) throw new WaymarkError("nothing_selected", "nothing is selected to copy: select the text first (select_text)");
  if (found.password) throw new WaymarkError("not_editable", "text in a password field cannot be copied");
  await chrome.storage.session.set({ [CLIPBOARD_KEY]: found.text });
  if (op === "cut" && found.editable) await sendToFrame(ctx.tabId, found.frameId, { kind: KIND.ACT_EDIT_SELECTION, op: "delete" });
  ctx.result.clipboard = { op, chars: found.text.length, removed: op === "cut" && found.editable };
}

/**
 * The selection a copy takes: in the given frames, else in the focused frame, else in the first
 * frame that has one (top document first).
 * @param {number} tabId @param {number[]|null} frameIds
 * @returns {Promise<{frameId: number, text: string, editable: boolean, password?: boolean}|null>}
 */
async function selectionIn(tabId, frameIds) {
  const ids = frameIds || ((await chrome.webNavigation.getAllFrames({ tabId })) || []).map((f) => f.frameId).sort((x, y) => x - y);
  const answers = await Promise.all(ids.map((frameId) => sendToFrame(tabId, frameId, { kind: KIND.ACT_READ_SELECTION })
    .then((sel) => ({ frameId, ...sel }), () => null)));
  const withText = answers.filter((s) => s && (s.text || s.password));
  return withText.find((s) => s?.focused) || withText[0] || null;
}

/** The frame holding the focus (the top document when none says so). @param {number} tabId */
async function focusedFrame(tabId) {
  const ids = ((await chrome.webNavigation.getAllFrames({ tabId })) || []).map((f) => f.frameId);
  for (const frameId of ids.sort((x, y) => y - x)) {
    const sel = await sendToFrame(tabId, frameId, { kind: KIND.ACT_READ_SELECTION }).catch(() => null);
    if (sel?.focused) return frameId;
  }
  return 0;
}

// ------------------------------------------------------------------ custom select

/**
 * `select` on a widget that is not a native select: open it (click) when its options are not
 * shown, then click the option named `value` and wait for the widget to show that it took it
 * (see content/forms.js optionTaken). A widget that shows no sign fails the action as
 * `not_selected`, never a silent success: a page that ignores synthetic clicks, a press that
 * went nowhere. The widget was prepared (scrolled into view, checked actionable) by the caller.
 * @param {Ctx} ctx @param {Dispatch} d @param {RefTarget} t @param {Select} a
 */
export async function selectCustom(ctx, d, t, a) {
  const ask = (/** @type {boolean} */ clicked, /** @type {boolean} */ last) => d.toFrame(ctx, t, { kind: KIND.ACT_FIND_OPTION, value: a.value, clicked, last });
  let found = await ask(false, false);
  if (found.open) {
    await click(ctx, d, t, `ref ${a.ref}`);
    const deadline = performance.now() + OPEN_MS;
    for (;;) {
      d.notLeaving(ctx, "opening the dropdown");
      const last = performance.now() >= deadline;
      found = await ask(true, last);
      if (!found.open || last) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const selected = { label: found.label, custom: true };
  ctx.result.selected = selected;
  if (found.already) {
    ctx.result.already = true;
    return;
  }
  const option = { frameId: t.frameId, docId: t.docId, localRef: found.option_local_ref };
  const named = `option ${JSON.stringify(found.label)} of ref ${a.ref}`;
  const pressed = await click(ctx, d, option, named, () => d.toFrame(ctx, t, { kind: KIND.ACT_OPTION_WATCH, option: option.localRef }));
  const sign = await takenSign(ctx, d, t);
  if (sign) {
    ctx.result.selected = { ...selected, sign };
    return;
  }
  const how = pressed
    ? "was pressed"
    : `was clicked with synthetic events (trusted input is unavailable: ${ctx.result.fallback_reason}), which pages that take only trusted input ignore,`;
  throw new WaymarkError("not_selected", `${named} ${how} and the widget showed no sign of taking it within ${REACT_MS} ms: nothing was chosen`, { option: found.label, path: ctx.result.path });
}

/**
 * The sign the widget gave of taking the pressed option, looked for until REACT_MS have passed
 * (a page that re-renders after a tick shows it late): null when there was none. A page that
 * began to navigate, or a frame that went away, took the press.
 * @param {Ctx} ctx @param {Dispatch} d @param {RefTarget} t  the widget
 * @returns {Promise<string|null>}
 */
async function takenSign(ctx, d, t) {
  const deadline = performance.now() + REACT_MS;
  for (;;) {
    if (ctx.watcher.leaving()) return "navigated";
    const last = performance.now() >= deadline;
    /** @type {{taken: string|null}} */
    let answer;
    try {
      answer = await d.toFrame(ctx, t, { kind: KIND.ACT_OPTION_TAKEN, last });
    } catch (e) {
      if (errorCode(e) === "stale_ref") return "navigated";
      throw e;
    }
    if (answer.taken || last) return answer.taken;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Click an element (a widget or its option) the way `click` does: actionability, then a trusted
 * click that lands on the element or not at all (the press guard: a press held back fails the
 * action as `occluded`, one that never arrived as `press_lost`, naming the element as `named`),
 * or synthetic events without the debugger. `beforePress` runs after the pointer has reached the
 * element, just before the press.
 * @param {Ctx} ctx @param {Dispatch} d @param {RefTarget} t @param {string} named
 * @param {() => Promise<unknown>=} beforePress
 * @returns {Promise<boolean>} whether the press was trusted (false: synthetic events)
 */
async function click(ctx, d, t, named, beforePress) {
  const p = await d.prepare(ctx, t, "pointer", { guard: true });
  // With beforePress the pointer is always moved first (probed), never with the press.
  if (await d.trusted(ctx, p, beforePress ? undefined : t)) {
    if (beforePress) await beforePress();
    await d.guardedClick(ctx, p);
    await d.readGuard(ctx, named);
    return true;
  }
  if (beforePress) await beforePress();
  await d.synthetic(ctx, t, { kind: KIND.ACT_PERFORM, action: { type: "click" }, x: p.local.x, y: p.local.y });
  return false;
}
