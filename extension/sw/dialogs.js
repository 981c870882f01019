// @ts-check
/**
 * Every JavaScript dialog of a tab, whoever answered it: the debugger (sw/cdp.js) while it is
 * attached, the page-world script content/dialogs.js while it is not. Each record is reported
 * in the next action's result (`dialogs`), and at the top of the text of every snapshot until
 * the next action starts, where the model reads it with the page (a run takes several snapshots
 * between two actions, for its checks and for the executor's prompt: each shows it).
 */

import { refGeneration } from "./refs.js";
import { oneLine, sanitizeUrl } from "./snapshot_text.js";

/**
 * @typedef {{type: "alert"|"confirm"|"prompt"|"beforeunload", message: string, url: string, handled: "accept"|"dismiss"|"pending", by: "debugger"|"page", at: number, default_prompt?: string, text?: string}} DialogRecord
 */

/** How long a frame may take to answer a question about its dialogs (a blocked one never does). */
const FRAME_MS = 1000;
const SHIM_FILE = "content/dialogs.js";

/** @type {Map<number, {result: DialogRecord[], recent: DialogRecord[]}>} */
const byTab = new Map();
/**
 * The dialog each tab's page waits on, held open by the debugger for `answer_dialog`, with the
 * protocol session that reported it (a cross-origin frame's own) and who waits for it to open.
 * @type {Map<number, {record: DialogRecord, sessionId?: string}>}
 */
const held = new Map();
/** @type {Map<number, Set<() => void>>} */
const holdWaiters = new Map();

/** A dialog opened and is held for an answer. @param {number} tabId @param {DialogRecord} open @param {string=} sessionId */
export function hold(tabId, open, sessionId) {
  held.set(tabId, { record: open, sessionId });
  for (const wake of holdWaiters.get(tabId) || []) wake();
}

/** The dialog the tab's page waits on, if any. @param {number} tabId */
export function heldDialog(tabId) {
  return held.get(tabId) ?? null;
}

/** The held dialog was answered (or can no longer be). @param {number} tabId */
export function release(tabId) {
  held.delete(tabId);
}

/**
 * A command to the page that a dialog it opens ends: the page answers nothing while the dialog
 * is open, so an input command that opened one resolves (to undefined) when it is held.
 * @template T
 * @param {number} tabId @param {Promise<T>} command @returns {Promise<T|undefined>}
 */
export async function untilHeld(tabId, command) {
  /** @type {() => void} */
  let wake = () => {};
  const opened = new Promise((resolve) => { wake = () => resolve(undefined); });
  const waiters = holdWaiters.get(tabId) || new Set();
  holdWaiters.set(tabId, waiters.add(wake));
  command.catch(() => {}); // settled after the dialog is answered, with nobody reading it
  try {
    return await Promise.race([command, opened]);
  } finally {
    waiters.delete(wake);
  }
}

/** @param {number} tabId */
function queues(tabId) {
  let q = byTab.get(tabId);
  if (!q) byTab.set(tabId, (q = { result: [], recent: [] }));
  return q;
}

/** Note a dialog of the tab. @param {number} tabId @param {DialogRecord} record */
export function record(tabId, record) {
  const q = queues(tabId);
  q.result.push(record);
  q.recent.push(record);
}

/** The dialogs not yet reported in an action's result. @param {number} tabId @returns {DialogRecord[]} */
export function takeForResult(tabId) {
  return queues(tabId).result.splice(0);
}

/** The dialogs since the last action began, for snapshots. @param {number} tabId @returns {DialogRecord[]} */
export function recentDialogs(tabId) {
  return [...queues(tabId).recent];
}

/** An action begins: the dialogs before it have been shown. @param {number} tabId */
export function forgetRecent(tabId) {
  queues(tabId).recent.splice(0);
}

/**
 * A call into the page-world script of every frame (injected first where the document predates
 * the extension), bounded: a frame blocked by a native dialog gives nothing.
 * @template T
 * @param {number} tabId @param {(on: boolean) => T} func @param {boolean} arg
 * @returns {Promise<T[]>}
 */
async function inEveryFrame(tabId, func, arg) {
  const target = { tabId, allFrames: true };
  const call = (async () => {
    await chrome.scripting.executeScript({ target, files: [SHIM_FILE], world: "MAIN", injectImmediately: true });
    const answers = await chrome.scripting.executeScript({ target, func, args: [arg], world: "MAIN", injectImmediately: true });
    return answers.map((a) => /** @type {T} */ (a.result));
  })();
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve([]), FRAME_MS); });
  try {
    return /** @type {T[]} */ (await Promise.race([call, late]));
  } catch {
    return []; // a restricted page, a tab gone: it has no page-world dialogs to own or collect
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Tell the tab's frames whether the debugger answers their dialogs (it is attached) or they
 * answer them themselves.
 * @param {number} tabId @param {boolean} owned
 */
export async function ownPageDialogs(tabId, owned) {
  await inEveryFrame(tabId, (on) => {
    const handle = /** @type {{own?: (on: boolean) => void}|undefined} */ (/** @type {any} */ (globalThis)[Symbol.for("waymark.dialogs")]);
    handle?.own?.(on);
    return null;
  }, owned);
}

/** Collect the dialogs the page-world script answered in every frame of the tab. @param {number} tabId */
export async function collectPageDialogs(tabId) {
  if (held.has(tabId)) return; // the page is blocked: its frames answer nothing until the dialog is
  const taken = await inEveryFrame(tabId, () => {
    const handle = /** @type {{take?: () => unknown[]}|undefined} */ (/** @type {any} */ (globalThis)[Symbol.for("waymark.dialogs")]);
    return handle?.take?.() || [];
  }, false);
  const found = taken.flatMap((list) => (Array.isArray(list) ? list : [])).map(asRecord).filter((r) => r !== null);
  found.sort((a, b) => a.at - b.at);
  for (const r of found) record(tabId, r);
}

/**
 * A record from a page, checked: the page's world is the page's, so what comes back is data of
 * the expected shape or nothing.
 * @param {unknown} raw @returns {DialogRecord|null}
 */
function asRecord(raw) {
  const r = /** @type {Record<string, unknown>} */ (raw);
  if (!r || typeof r !== "object" || !["alert", "confirm", "prompt"].includes(String(r.type))) return null;
  /** @type {DialogRecord} */
  const out = { type: /** @type {"alert"|"confirm"|"prompt"} */ (r.type), message: String(r.message ?? "").slice(0, 500), url: String(r.url ?? ""),
    handled: r.handled === "accept" ? "accept" : "dismiss", by: "page", at: Number(r.at) || Date.now() };
  if (r.type === "prompt") out.default_prompt = String(r.default_prompt ?? "").slice(0, 500);
  return out;
}

/**
 * The lines a snapshot's text begins with for these dialogs (page data: the model reads them
 * inside the page's untrusted block).
 * @param {DialogRecord[]} records @returns {string[]}
 */
export function dialogLines(records) {
  return records.map((r) => {
    const quoted = JSON.stringify(r.message.replace(/\s+/g, " ").trim());
    const shown = r.type === "prompt" ? ` default ${JSON.stringify(r.default_prompt ?? "")}` : "";
    const answer = r.handled === "pending" ? "open: the page waits for answer_dialog"
      : r.type === "alert" || r.type === "beforeunload" ? (r.handled === "accept" ? "closed" : "stayed on the page")
        : r.handled === "accept" ? (r.type === "prompt" ? `answered ${JSON.stringify(r.text ?? "")}` : "answered OK") : "answered Cancel";
    return `dialog ${r.type} ${quoted}${shown} (${answer})`;
  });
}

/**
 * The snapshot of a page that waits on a dialog: its frames answer nothing, so it lists no
 * element, only the dialogs (the open one last) for the model to answer.
 * @param {chrome.tabs.Tab} tab @param {DialogRecord} open
 * @returns {import("../shared/actions.js").Snapshot}
 */
export function dialogSnapshot(tab, open) {
  const tabId = /** @type {number} */ (tab.id);
  const text = [...dialogLines(recentDialogs(tabId)), "the page is blocked until this dialog is answered: answer_dialog with accept true (OK) or false (Cancel), and text for a prompt"].join("\n");
  return {
    url: sanitizeUrl(tab.url || open.url),
    title: oneLine(tab.title || "", 200),
    viewport: { width: tab.width || 0, height: tab.height || 0, scroll_x: 0, scroll_y: 0, page_width: 0, page_height: 0, dpr: 1 },
    elements: [],
    text,
    next_offset: null,
    page_overflow: false,
    stats: { elements_total: 0, chars: text.length, ms: 0 },
    tab_id: tabId,
    ref_generation: refGeneration(tabId),
    screenshot_b64: null,
    dialog: { type: open.type, message: open.message, default_prompt: open.default_prompt ?? null },
    dialogs: recentDialogs(tabId),
  };
}

chrome.tabs.onRemoved.addListener((tabId) => {
  byTab.delete(tabId);
  held.delete(tabId);
  holdWaiters.delete(tabId);
});
