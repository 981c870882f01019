// @ts-check
/**
 * Recording a demonstration: the side panel starts and stops it; while it runs, the frames of the
 * recorded tab (and of tabs it opens) report each action the user makes (content/recorder.js),
 * and this takes a snapshot after each one has settled, so the host can find each step's element
 * among its neighbours on the page before it and propose a check from what changed
 * (host/workflows/record.py). Steps from any other tab are ignored: only the recorded tab is
 * watched. A secret typed in a frame is bound to the origin the browser says the frame has
 * (chrome.webNavigation, never the page), and its value never leaves the frame.
 *
 * A JavaScript dialog the user's action raised is the user's to answer (the debugger is detached
 * from the tab while it is recorded, so nothing answers it for them): the step waits while it is
 * open, and keeps the answer the user gave it, which a replay gives again.
 *
 * The recording is kept in `chrome.storage.session` after each step (as sw/downloads.js keeps its
 * records): Chrome stops an idle worker whenever it likes, and the next one, woken by the user's
 * next action in the still-armed page, carries on with the steps already recorded.
 */
import { KIND } from "../shared/actions.js";
import { detach, isAttached } from "./cdp.js";
import { errorMessage } from "../shared/errors.js";
import { isOwnPage } from "./panel.js";
import { pageText } from "./page_text.js";
import { globalRef } from "./refs.js";
import { TabWatcher } from "./settle.js";
import { takeSnapshot } from "./snapshot.js";
import { originOf } from "./secret_gate.js";

/** @typedef {import("../shared/actions.js").Snapshot} Snapshot */
/** @typedef {import("../shared/content_types.js").RecordedAction} RecordedAction */
/** @typedef {{type: string, message: string, accepted: boolean, text?: string}} RecordedDialog */
/**
 * One recorded step: what the user did, where (the snapshot `before` lists its element under
 * `ref`, when it does), and the snapshot `after` it settled.
 * @typedef {{action: string, role?: string, name?: string, ref?: number|null, value?: string, key?: string, url?: string, text?: string, page_text?: string,
 *   secret?: boolean, secret_origin?: string|null, frame_origin?: string|null, tab_id: number, box?: number[], dialogs?: RecordedDialog[],
 *   appeared?: string[], before: number, after: number}} RecordedStep
 * The dialogs the user answered since the last step was kept, and the one open now (its end wakes `closed`).
 * @typedef {{answered: RecordedDialog[], open: number, closed: Set<() => void>}} Dialogs
 * @typedef {{tabId: number, tabs: Set<number>, current: number, startUrl: string, snapshots: Snapshot[], steps: RecordedStep[],
 *   queue: Promise<void>, pending: number, watcher: TabWatcher, problem: string, dialogs: Dialogs,
 *   text: string|null}} Recording
 * (`text`: the readable text of the recorded page after the last step, to tell what text a step made appear; null: not known.)
 * What of a recording a later worker needs, as chrome.storage.session holds it.
 * @typedef {{tabId: number, tabs: number[], current: number, startUrl: string, snapshots: Snapshot[], steps: RecordedStep[],
 *   problem: string}} KeptRecording
 */

/** How much of each page a recorded snapshot keeps: enough for a long form's every field. */
const SNAPSHOT_CHARS = 60000;
/** The readable text kept of the page an answer is marked on: as much as a replay reads (host PAGE_TEXT). */
const PAGE_TEXT_CHARS = 20000;
/** A step's page gets this long at least to show what the action did. */
const SETTLE_MIN_MS = 100;
const SETTLE_MAX_MS = 8000;
/** The page is read again this long after a step settled, unless the user already acted again. */
const LATE_MS = 300;
/** How long a step waits for the user to answer a dialog it raised: a person reads it first. */
const DIALOG_MAX_MS = 10 * 60 * 1000;

/** The key of the recording in chrome.storage.session. */
const STORE_KEY = "recording";

/** @type {Recording|null} */
let recording = null;
/** The recording an earlier worker kept, back in memory: every message waits for it. */
let restored = Promise.resolve();
/** Writes to chrome.storage.session, one after another (the last one written is the newest state). */
let saving = Promise.resolve();

/** @param {KeptRecording} kept @returns {Recording} */
function revive(kept) {
  return { ...kept, tabs: new Set(kept.tabs), queue: Promise.resolve(), pending: 0, watcher: new TabWatcher(kept.current), dialogs: noDialogs(),
    text: null };
}

/**
 * Keep the recording where the next worker finds it (null: none is running). One too large for the
 * storage's quota is kept as its problem, so a worker that had to start again says what was lost
 * instead of saving a recording with steps missing.
 * @param {Recording|null} r
 */
function persist(r) {
  /** @type {KeptRecording|null} */
  const kept = r && { tabId: r.tabId, tabs: [...r.tabs], current: r.current, startUrl: r.startUrl, snapshots: r.snapshots, steps: r.steps, problem: r.problem };
  saving = saving.then(async () => {
    if (!kept) {
      await chrome.storage.session.remove(STORE_KEY);
      return;
    }
    await chrome.storage.session.set({ [STORE_KEY]: kept }).catch((e) => chrome.storage.session.set({ [STORE_KEY]: { ...kept, snapshots: [], steps: [],
      problem: `the service worker was stopped and the recording could not be kept for it (${errorMessage(e)}): record it again` } }));
  }).catch(() => undefined);
  return saving;
}

/** The most lines of text a step records as having appeared, and the longest line kept. */
const APPEARED_LINES = 3;
const APPEARED_CHARS = 200;

/** The readable text of a tab's page, as checks read it; null when the page did not answer. @param {number} tabId */
async function readable(tabId) {
  return (await pageText(tabId, PAGE_TEXT_CHARS, true).catch(() => null))?.text ?? null;
}

/**
 * The lines of `now` that `before` did not hold: the text a step made appear (a message in a plain
 * paragraph, which a snapshot lists only when it is a heading or a live region).
 * @param {string|null} before @param {string|null} now @returns {string[]}
 */
function appearedLines(before, now) {
  if (before === null || now === null) return [];
  const lines = (/** @type {string} */ text) => text.split("\n").map((l) => l.replace(/\s+/g, " ").trim()).filter((l) => l.length >= 3);
  const old = new Set(lines(before));
  return [...new Set(lines(now).filter((l) => !old.has(l) && l.length <= APPEARED_CHARS))].slice(0, APPEARED_LINES);
}

/** @returns {Dialogs} */
function noDialogs() {
  return { answered: [], open: 0, closed: new Set() };
}

/**
 * Wait (bounded) until no dialog the user is answering is open: the page answers nothing meanwhile.
 * Whether one was.
 * @param {Recording} r @returns {Promise<boolean>}
 */
async function dialogsAnswered(r) {
  if (r.dialogs.open === 0) return false;
  /** @type {() => void} */
  let wake = () => {};
  const closed = new Promise((resolve) => { wake = () => resolve(undefined); });
  r.dialogs.closed.add(wake);
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  try {
    await Promise.race([closed, new Promise((resolve) => { timer = setTimeout(resolve, DIALOG_MAX_MS); })]);
  } finally {
    clearTimeout(timer);
    r.dialogs.closed.delete(wake);
  }
  return true;
}

/**
 * A dialog a recorded frame told of: opened (the step waits for it) or answered by the user.
 * @param {Recording} r @param {{phase: string, type: string, message: string, accepted: boolean, text?: string}} told
 */
function dialogTold(r, told) {
  if (told.phase === "open") {
    r.dialogs.open += 1;
    return;
  }
  r.dialogs.open = Math.max(0, r.dialogs.open - 1);
  r.dialogs.answered.push({ type: told.type, message: told.message, accepted: told.accepted, ...(told.text !== undefined ? { text: told.text } : {}) });
  if (r.dialogs.open === 0) for (const wake of [...r.dialogs.closed]) wake();
}

/** @param {number} tabId */
function snapshot(tabId) {
  return takeSnapshot(tabId, { max_chars: SNAPSHOT_CHARS, occlusion: false });
}

/**
 * Wait (bounded) until the tab's document has loaded; whether it had to wait.
 * @param {number} tabId @returns {Promise<boolean>}
 */
async function loaded(tabId) {
  const deadline = performance.now() + SETTLE_MAX_MS;
  let waited = false;
  while (performance.now() < deadline) {
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (!tab || tab.status === "complete") return waited;
    waited = true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return waited;
}

/** Turn the recorders of every frame of a tab on or off. @param {number} tabId @param {boolean} on */
async function arm(tabId, on) {
  await chrome.tabs.sendMessage(tabId, { kind: KIND.RECORD_ARM, on }).catch(() => {});
}

/** Tell the side panel how far the recording is. */
function progress() {
  const r = recording;
  void persist(r);
  chrome.runtime.sendMessage({ kind: "wm:recorder:progress", recording: Boolean(r), steps: r ? r.steps.length : 0, problem: r?.problem || "" }).catch(() => {});
}

/** @param {number} tabId */
async function start(tabId) {
  if (recording) throw new Error("a recording is already running: stop it first");
  // The debugger answers the dialogs of a tab it is attached to (an agent's run just ended there): the user answers them now.
  if (isAttached(tabId)) await detach(tabId);
  const first = await snapshot(tabId);
  recording = { tabId, tabs: new Set([tabId]), current: tabId, startUrl: first.url, snapshots: [first], steps: [],
    queue: Promise.resolve(), pending: 0, watcher: new TabWatcher(tabId), problem: "", dialogs: noDialogs(), text: await readable(tabId) };
  await persist(recording);
  await arm(tabId, true);
  return { recording: true, tab_id: tabId, start_url: first.url };
}

/**
 * The user asks to mark the answer: the text selected in the recorded tab is it, else the next
 * element clicked there (content/recorder.js); the panel hears of it as a step.
 */
async function mark() {
  const r = recording;
  if (!r) throw new Error("nothing is being recorded: press Record first");
  await chrome.tabs.sendMessage(r.current, { kind: KIND.RECORD_MARK, on: true }).catch(() => {});
  return { marking: true };
}

async function stop() {
  const r = recording;
  if (!r) throw new Error("nothing is being recorded");
  await r.queue;
  recording = null;
  await persist(null);
  r.watcher.stop();
  await Promise.all([...r.tabs].map((tabId) => arm(tabId, false)));
  progress();
  // The readable text of the page the recording ended on: the review marks an answer there (sidepanel/review_answer.js).
  const finalText = await pageText(r.current, PAGE_TEXT_CHARS, true).then((read) => read.text, () => "");
  return { start_url: r.startUrl, snapshots: r.snapshots, steps: r.steps, problem: r.problem, final_text: finalText };
}

/**
 * Settle after a step and keep the page it left: its snapshot is the step's `after` and the next
 * step's `before` (a typed value or a choice keeps the page it was made on).
 * @param {Recording} r @param {Omit<RecordedStep, "before"|"after">} step
 */
async function settled(r, step) {
  const before = r.snapshots.length - 1;
  if (step.action === "answer") {
    // The answer is read from the page as it stands when marked (a section loaded since the last step included),
    // in the readable text a replay reads it again from (host/workflows/reread.py).
    r.snapshots.push(await snapshot(r.current));
    step.page_text = (await pageText(r.current, PAGE_TEXT_CHARS, true)).text;
    r.steps.push({ ...step, before: r.snapshots.length - 1, after: r.snapshots.length - 1 });
    await Promise.all([...r.tabs].map((tabId) => chrome.tabs.sendMessage(tabId, { kind: KIND.RECORD_MARK, on: false }).catch(() => {})));
    progress();
    return;
  }
  if (step.action === "fill" || step.action === "select") {
    // A value changes only its field, which the step reports itself; and the user's next action
    // (Sign in, clicked as the field loses focus) must find the page before it, not after it.
    r.steps.push({ ...step, before, after: before });
    progress();
    return;
  }
  let result = await r.watcher.settle({ startedAt: performance.now(), minMs: SETTLE_MIN_MS, timeoutMs: SETTLE_MAX_MS }).catch(() => null);
  if (await dialogsAnswered(r)) {
    // The page was held by the dialog: what the user's answer did is the step's effect.
    const again = await r.watcher.settle({ startedAt: performance.now(), minMs: SETTLE_MIN_MS, timeoutMs: SETTLE_MAX_MS }).catch(() => null);
    result = result?.new_tab ? result : again;
  }
  if (result?.new_tab) {
    r.tabs.add(result.new_tab.tab_id);
    r.current = result.new_tab.tab_id;
    // Its document may have asked before the tab was known as the recorded tab's.
    await arm(result.new_tab.tab_id, true);
  }
  if (await loaded(r.current)) {
    // A page the step led to is read once its own scripts have run (its title, its headings): a
    // check proposed from a page half loaded would fail every replay.
    await r.watcher.settle({ startedAt: performance.now(), minMs: 0, timeoutMs: SETTLE_MAX_MS }).catch(() => null);
  }
  r.snapshots.push(await snapshot(r.current));
  await new Promise((resolve) => setTimeout(resolve, LATE_MS));
  // What the page showed a moment later (an upsell that slides in): the next step acts on it.
  if (r.pending === 1) r.snapshots[r.snapshots.length - 1] = await snapshot(r.current);
  const dialogs = r.dialogs.answered.splice(0);
  const text = await readable(r.current);
  const appeared = appearedLines(r.text, text);
  r.text = text;
  r.steps.push({ ...step, ...(dialogs.length ? { dialogs } : {}), ...(appeared.length ? { appeared } : {}), before, after: r.snapshots.length - 1 });
  progress();
}

/**
 * A step a frame of a recorded tab reported.
 * @param {Recording} r @param {RecordedAction} seen @param {number} tabId @param {number} frameId
 */
async function recordAction(r, seen, tabId, frameId) {
  /** @type {Omit<RecordedStep, "before"|"after">} */
  const step = { action: seen.action, role: seen.role, name: seen.name, tab_id: tabId, box: seen.box,
    ref: seen.local_ref !== null ? globalRef(tabId, frameId, seen.doc_id, seen.local_ref) : null };
  if (seen.key) step.key = seen.key;
  if (typeof seen.text === "string") step.text = seen.text;
  if (seen.action === "fill") {
    // Where the field is, as the browser says it (never the page): a secret typed there is bound to it.
    const frame = await chrome.webNavigation.getFrame({ tabId, frameId }).catch(() => null);
    step.frame_origin = originOf(frame?.url);
  }
  if (seen.secret) {
    step.secret = true;
    step.secret_origin = step.frame_origin;
  } else if (typeof seen.value === "string") {
    step.value = seen.value;
  }
  await settled(r, step);
}

/**
 * Queue work on the recording, in the order the user acted; a failure is kept for the panel to show.
 * @param {Recording} r @param {() => Promise<void>} work
 */
function enqueue(r, work) {
  r.pending += 1;
  r.queue = r.queue.then(work).catch((e) => {
    r.problem = `a step could not be recorded: ${errorMessage(e)}`;
    progress();
  }).finally(() => { r.pending -= 1; });
}

export function registerRecorder() {
  restored = chrome.storage.session.get(STORE_KEY).then((got) => {
    const kept = /** @type {KeptRecording|undefined} */ (got?.[STORE_KEY]);
    if (kept && !recording) recording = revive(kept);
  }).catch(() => undefined);
  chrome.runtime.onMessage.addListener((/** @type {{kind?: string, tab_id?: number, step?: RecordedAction}|null} */ msg, sender, sendResponse) => {
    const kind = msg?.kind;
    if (kind === KIND.RECORD_ASK) {
      void restored.then(() => sendResponse({ on: Boolean(recording && sender.tab?.id !== undefined && recording.tabs.has(sender.tab.id)) }));
      return true;
    }
    if (kind === KIND.RECORD_DIALOG) {
      const told = /** @type {{dialog?: {phase: string, type: string, message: string, accepted: boolean, text?: string}}} */ (msg).dialog;
      void restored.then(() => {
        const tabId = sender.tab?.id;
        if (recording && told && tabId !== undefined && recording.tabs.has(tabId)) dialogTold(recording, told);
      });
      return false;
    }
    if (kind === KIND.RECORD_STEP) {
      void restored.then(() => {
        const r = recording;
        const tabId = sender.tab?.id;
        // Only the recorded tab and the tabs it opened are recorded, whatever another tab's frame sends.
        if (r && msg?.step && tabId !== undefined && r.tabs.has(tabId)) {
          const seen = msg.step;
          enqueue(r, () => recordAction(r, seen, tabId, sender.frameId ?? 0));
        }
      });
      return false;
    }
    if (!["wm:recorder:start", "wm:recorder:stop", "wm:recorder:mark", "wm:recorder:status"].includes(kind || "")) return false;
    // Starting and stopping is the user's, through the side panel: never a page's.
    if (!isOwnPage(sender, chrome.runtime.getURL(""))) return false;
    const work = restored.then((/** @returns {Promise<object>|object} */ () => kind === "wm:recorder:start" ? start(Number(msg?.tab_id))
      : kind === "wm:recorder:stop" ? stop()
      : kind === "wm:recorder:mark" ? mark()
      : { recording: Boolean(recording), steps: recording?.steps.length ?? 0, tab_id: recording?.tabId ?? null }));
    work.then((data) => sendResponse({ ok: true, data }), (e) => sendResponse({ ok: false, error: errorMessage(e) }));
    return true;
  });
  // A tab the recorded tab opens is recorded too (its first document asks, content/recorder.js).
  chrome.tabs.onCreated.addListener((tab) => void restored.then(() => {
    if (recording && tab.id !== undefined && tab.openerTabId !== undefined && recording.tabs.has(tab.openerTabId)) recording.tabs.add(tab.id);
  }));
  // A link with target=_blank opens its tab without an opener (noopener): the navigation names its source.
  chrome.webNavigation.onCreatedNavigationTarget.addListener((d) => void restored.then(() => {
    if (recording && recording.tabs.has(d.sourceTabId)) recording.tabs.add(d.tabId);
  }));
  // An address the user typed or picked is a step of its own; a link's or a form's navigation is the click's.
  chrome.webNavigation.onCommitted.addListener((d) => void restored.then(() => {
    const r = recording;
    if (!r || d.frameId !== 0 || !r.tabs.has(d.tabId)) return;
    if (!["typed", "auto_bookmark", "generated"].includes(d.transitionType)) return;
    enqueue(r, async () => {
      r.current = d.tabId;
      await settled(r, { action: "navigate", url: d.url, tab_id: d.tabId });
    });
  }));
}
