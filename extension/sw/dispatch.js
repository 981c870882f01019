// @ts-check
/**
 * The `act` request: one typed action (host/core/actions.py) in, one ActionResult (host/core/browser_api.py)
 * out. Element actions resolve the global ref in its frame, let the frame scroll the element
 * into view and check it can be acted on, then act with trusted CDP input at the element's
 * point in top-level coordinates (synthetic DOM events when the debugger cannot attach), and
 * settle. Every failure is an `ok: false` result with a code; a stale ref carries a fresh
 * snapshot and is never re-dispatched to some other element.
 */
import * as cdp from "./cdp.js";
import { keystrokes } from "./keyboard.js";
import { isInside, toFrameLocal, toTopLevel } from "../shared/coords.js";
import { ensureInjected, isRestrictedUrl, sendToFrame } from "./inject.js";
import { WaymarkError } from "./native.js";
import { errorCode, errorData, errorMessage } from "../shared/errors.js";
import { fromEarlierGeneration, globalRef, resolveRef, wasIssued } from "./refs.js";
import { TabWatcher } from "./settle.js";
import { pageText, pdfBytes } from "./page_text.js";
import { tabDownloads } from "./downloads.js";
import { frameOffsets, takeSnapshot } from "./snapshot.js";
import { requireTab } from "./tabs.js";
import { BROWSER_ACTIONS, ELEMENT_ACTIONS, KIND, SETTLING_ACTIONS } from "../shared/actions.js";
import * as forms from "./forms.js";
import * as pointerActions from "./pointer.js";
import { collectPageDialogs, forgetRecent, heldDialog, ownPageDialogs, takeForResult } from "./dialogs.js";
import { admitTab, admitUrl } from "./gate.js";
import { applyGate, releaseTabs } from "./net_gate.js";
import { admitSecret } from "./secret_gate.js";

/**
 * @typedef {import("./refs.js").RefTarget} RefTarget
 * @typedef {import("../shared/actions.js").ActionResult} ActionResult
 * @typedef {import("../shared/actions.js").ActRequest} ActRequest
 * @typedef {import("../shared/actions.js").BrowserActionType} BrowserActionType
 * @typedef {import("../shared/actions.js").Action} Action
 * @typedef {import("../shared/actions.js").Click} Click
 * @typedef {import("../shared/actions.js").DoubleClick} DoubleClick
 * @typedef {import("../shared/actions.js").Hover} Hover
 * @typedef {import("../shared/actions.js").Type} Type
 * @typedef {import("../shared/actions.js").Fill} Fill
 * @typedef {import("../shared/actions.js").Press} Press
 * @typedef {import("../shared/actions.js").Select} Select
 * @typedef {import("../shared/actions.js").Check} Check
 * @typedef {import("../shared/actions.js").Uncheck} Uncheck
 * @typedef {import("../shared/actions.js").Scroll} Scroll
 * @typedef {import("../shared/actions.js").Extract} ExtractAction
 * @typedef {import("../shared/actions.js").Wait} Wait
 * @typedef {import("../shared/actions.js").Navigate} Navigate
 * @typedef {import("../shared/actions.js").Back} Back
 * @typedef {import("../shared/actions.js").Forward} Forward
 * @typedef {import("../shared/actions.js").Reload} Reload
 * @typedef {import("../shared/actions.js").NewTab} NewTab
 * @typedef {import("../shared/actions.js").SwitchTab} SwitchTab
 * @typedef {import("../shared/actions.js").CloseTab} CloseTab
 * @typedef {import("../shared/actions.js").UploadFile} UploadFile
 * @typedef {import("../shared/actions.js").SelectText} SelectText
 * @typedef {import("../shared/actions.js").AnswerDialog} AnswerDialog
 */

/** How long a synthetic action may take before the page is considered blocked (by a dialog). */
const SYNTHETIC_TIMEOUT_MS = 5000;
/** How long a press into an out-of-process frame waits for the pointer's move to arrive there. */
const ARRIVE_MS = 1000;

/** Dispatch statistics for the side panel's diagnostics and the benchmark. */
export const dispatchStats = { acts: 0, cdp: 0, synthetic: 0, stale: 0 };

/**
 * Register the `act` request handler.
 * @param {import("./native.js").NativeChannel} channel
 */
export function registerDispatch(channel) {
  channel.handle("act", async (params) => act(/** @type {ActRequest} */ (params)));
  channel.handle("act.detach", async (params) => {
    await cdp.detachAll();
    const tabs = Array.isArray(params.tabs) ? params.tabs.filter((t) => typeof t === "number") : undefined;
    await releaseTabs(tabs);
    return { detached: true };
  });
}

/**
 * Carry out one action and report what happened.
 * @param {ActRequest} req
 * @returns {Promise<ActionResult>}
 */
export async function act(req) {
  const action = req.action || {};
  /** @type {ActionResult} */
  const result = {
    ok: false, action: String(action.type || ""), path: null, settle_ms: 0, url_before: "", url_after: "", navigated: false,
    new_tab: null, tab_id: null, error: null, snapshot: null, dialogs: [], text: null,
  };
  const t0 = performance.now();
  const startedAt = Date.now();
  /** Where the time went, for diagnostics and the benchmark. */
  const timings = { prepare: 0, input: 0, settle: 0, snapshot: 0, total: 0 };
  /** @type {TabWatcher|null} */
  let watcher = null;
  /** @type {Ctx|null} */
  let ctx = null;
  let tabId = -1;
  try {
    tabId = await targetTab(req.tab_id);
    result.tab_id = tabId;
    const tab = await requireTab(tabId);
    result.url_before = tab.url || tab.pendingUrl || "";
    if (ELEMENT_ACTIONS.has(result.action) && isRestrictedUrl(result.url_before)) {
      throw new WaymarkError("restricted_page", `extensions cannot act on ${safeScheme(result.url_before)} pages`);
    }
    if (action.ref !== undefined && action.ref !== null && fromEarlierGeneration(tabId, req.ref_generation)) {
      throw new WaymarkError("stale_ref", `ref ${action.ref} is from an earlier page of this tab: take its refs from the current snapshot`);
    }
    // The gate's domain lists hold on the network in the run's tabs before the action can send anything.
    await applyGate(req.gate, tabId);
    const open = heldDialog(tabId);
    if (open && result.action !== "answer_dialog") {
      throw new WaymarkError("dialog_open", `a ${open.record.type} dialog is open and the page waits for its answer: answer it with answer_dialog first`);
    }
    await collectPageDialogs(tabId); // answered in the page before this action: shown already, reported now
    forgetRecent(tabId);
    // A document the tab loaded since the debugger attached answers its own dialogs until its first
    // action (so a dialog while it loads is answered Cancel every time, never by a race with
    // this message); from here the debugger answers them.
    if (cdp.isAttached(tabId)) await ownPageDialogs(tabId, true);
    watcher = new TabWatcher(tabId);
    /** @type {cdp.DialogPolicy} */
    const policy = req.dialogs === "dismiss" || req.dialogs === "ask" ? req.dialogs : "accept";
    if (cdp.isAttached(tabId)) cdp.setDialogPolicy(tabId, policy);
    /** @type {Ctx} */
    ctx = { tabId, req, result, policy, preparedAt: 0, watcher, guarded: null };
    const started = performance.now();
    await perform(ctx);
    const acted = performance.now();
    timings.prepare = ctx.preparedAt ? ctx.preparedAt - started : 0;
    timings.input = acted - (ctx.preparedAt || started);
    dispatchStats.acts++;
    if (result.path === "cdp") dispatchStats.cdp++;
    if (result.path === "synthetic") dispatchStats.synthetic++;
    // A dialog the action opened and that waits for its answer blocks the page: nothing settles.
    const blocked = heldDialog(tabId) !== null;
    if (SETTLING_ACTIONS.has(result.action) && !blocked) {
      const settled = await watcher.settle({
        startedAt: acted,
        beganAt: ctx.preparedAt || started,
        minMs: req.settle_min_ms ?? 0,
        timeoutMs: req.settle_timeout_ms ?? 3000,
        commitMs: req.commit_timeout_ms,
        frameIds: ctx.frameId ? [ctx.frameId] : [],
      });
      if (settled.guard && ctx.guarded?.frameId === settled.guard.frameId) heldBack(ctx, settled.guard.verdict);
      result.settle_ms = settled.settle_ms;
      result.settled = settled.quiet;
      result.sent = settled.sent;
      result.navigated = result.navigated || settled.navigated;
      if (settled.new_tab) {
        result.new_tab = settled.new_tab;
        result.tab_id = settled.tab_id;
      }
    }
    // Settle asked another tab or document: the guard's verdict is asked for on its own.
    if (!blocked) await readGuard(ctx);
    result.ok = true;
  } catch (e) {
    result.ok = false;
    result.error = { code: errorCode(e) || "internal", message: errorMessage(e), data: errorData(e) || {} };
    if (result.error.code === "stale_ref") dispatchStats.stale++;
  } finally {
    // An action that failed between arming the guard and the press must not leave it armed.
    if (ctx?.guarded && !heldDialog(tabId)) await toFrame(ctx, ctx.guarded, { kind: KIND.ACT_GUARD_RESULT }).catch(() => null);
    watcher?.stop();
  }
  if (tabId >= 0) {
    await collectPageDialogs(tabId);
    result.dialogs = takeForResult(tabId);
    result.downloads = await tabDownloads(tabId, startedAt);
    const continued = await chrome.tabs.get(result.tab_id ?? tabId).catch(() => null);
    const own = continued?.id === tabId ? continued : await chrome.tabs.get(tabId).catch(() => null);
    // url_after is where the agent is now (the tab it continues in); `navigated` is about the tab it acted in.
    result.url_after = continued?.url || continued?.pendingUrl || "";
    if (result.new_tab && continued) result.new_tab.url = result.url_after || result.new_tab.url;
    const ownUrl = own?.url || own?.pendingUrl || "";
    if (own && ownUrl !== result.url_before && result.ok) result.navigated = true;
    // The fresh snapshot: asked for, and always for a stale ref (the model needs the new refs).
    const options = req.snapshot ?? (result.error?.code === "stale_ref" ? {} : null);
    if (options && continued) {
      try {
        const shot = performance.now();
        result.snapshot = await takeSnapshot(/** @type {number} */ (continued.id), { ...options, tab_id: continued.id });
        timings.snapshot = performance.now() - shot;
      } catch (e) {
        result.snapshot_error = { code: errorCode(e) || "snapshot_failed", message: errorMessage(e) };
      }
    }
  }
  timings.settle = result.settle_ms ?? 0;
  timings.total = performance.now() - t0;
  result.timings_ms = Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  return result;
}

/** @param {string} url */
function safeScheme(url) {
  try {
    return new URL(url).protocol;
  } catch {
    return "restricted";
  }
}

/**
 * The tab to act in: the given one, else the active tab of the last focused window.
 * @param {number|null|undefined} tabId
 */
async function targetTab(tabId) {
  if (tabId !== null && tabId !== undefined) {
    await requireTab(tabId);
    return tabId;
  }
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (!tab || tab.id === undefined) throw new WaymarkError("no_such_tab", "there is no active tab");
  return tab.id;
}

/**
 * @typedef {{tabId: number, req: ActRequest, result: ActionResult, policy: cdp.DialogPolicy, frameId?: number, preparedAt: number, watcher: TabWatcher, guarded: RefTarget|null, probed?: boolean, pressed?: boolean}} Ctx
 *   guarded: the target whose frame holds an armed press guard whose verdict is not read yet;
 *   probed: trusted() moved the pointer to the action's point to probe the page;
 *   pressed: guardedClick sent the guarded target its trusted press, so the verdict must say it arrived
 */

/** @param {Ctx} ctx */
async function perform(ctx) {
  const a = ctx.req.action;
  const kind = String(a.type);
  if (!BROWSER_ACTIONS.has(kind)) throw new WaymarkError("bad_action", `the extension does not carry out ${JSON.stringify(a.type)} actions`);
  // The host sent an action of the grammar (host/rpc/act.py validated it): its handler takes it as typed.
  return /** @type {(ctx: Ctx, a: unknown) => Promise<unknown>} */ (HANDLERS[/** @type {BrowserActionType} */ (kind)])(ctx, a);
}

/**
 * Resolve a global ref to its frame, document and local ref.
 * @param {number} tabId @param {unknown} ref @returns {RefTarget}
 */
function target(tabId, ref) {
  if (typeof ref !== "number" || !Number.isInteger(ref) || ref < 1) throw new WaymarkError("bad_action", "the action needs a ref (a positive integer from the snapshot)");
  const t = resolveRef(tabId, ref);
  if (t) return t;
  if (wasIssued(tabId, ref)) throw new WaymarkError("stale_ref", `ref ${ref} is stale: its element was removed or its document is gone`);
  throw new WaymarkError("not_found", `there is no ref ${ref} in tab ${tabId}: take a snapshot and use its refs`);
}

/**
 * A message to the frame holding a ref; a frame that is gone or reloaded makes the ref stale.
 * @param {Ctx} ctx @param {RefTarget} t @param {import("./inject.js").FrameMessage} message
 */
async function toFrame(ctx, t, message) {
  try {
    return await sendToFrame(ctx.tabId, t.frameId, { ...message, docId: t.docId, localRef: t.localRef });
  } catch (e) {
    const code = errorCode(e);
    if (code === "frame_unreachable") throw new WaymarkError("stale_ref", `the frame that held this ref is gone (${errorMessage(e)})`);
    if (code === "unknown_kind") {
      // The frame predates this extension version's content files: inject and ask once more.
      await ensureInjected(ctx.tabId);
      return sendToFrame(ctx.tabId, t.frameId, { ...message, docId: t.docId, localRef: t.localRef });
    }
    const data = errorData(e);
    if (code === "occluded" && typeof data?.occluder_local_ref === "number") {
      const occluder = globalRef(ctx.tabId, t.frameId, t.docId, data.occluder_local_ref);
      throw new WaymarkError("occluded", errorMessage(e), { occluder_ref: occluder, occluder: data.occluder });
    }
    throw e;
  }
}

/**
 * Scroll into view, check actionability, and compute the point in top-level coordinates. With
 * `guard`, the frame also arms the press guard for a trusted click to come (see guardedClick);
 * `want` is the checked state a check action wants (no guard when the box already has it).
 * @param {Ctx} ctx @param {RefTarget} t @param {"pointer"|"edit"|"check"|"select"|"focus"} kind
 * @param {{guard?: boolean, want?: boolean, scroll?: boolean}=} opts
 */
async function prepare(ctx, t, kind, opts = {}) {
  ctx.frameId = t.frameId;
  const prep = await toFrame(ctx, t, { kind: KIND.ACT_PREPARE, mode: kind, scroll: ctx.req.scroll_into_view !== false, ...opts });
  if (prep.guarded) ctx.guarded = t;
  ctx.preparedAt = performance.now();
  if (t.frameId === 0) return { ...prep, local: { x: prep.x, y: prep.y } };
  // The frame was scrolled into view with the element: read its offset now, not from the snapshot.
  const offsets = await frameOffsets(ctx.tabId);
  const frame = offsets.get(t.frameId);
  if (!frame) throw new WaymarkError("not_visible", `the frame holding ref ${ctx.req.action.ref} is not laid out in the page`);
  const [x, y] = toTopLevel([prep.x, prep.y, 0, 0], frame.offset);
  if (!isInside([x - 0.5, y - 0.5, 1, 1], frame.clip)) throw new WaymarkError("not_visible", `ref ${ctx.req.action.ref} is clipped by the frame around it`);
  await checkAncestorsReach(ctx, t.frameId, x, y, offsets);
  ctx.preparedAt = performance.now();
  return { ...prep, local: { x: prep.x, y: prep.y }, x, y };
}

/**
 * The frame's own hit test cannot see a parent document's banner drawn over the iframe: ask
 * each ancestor frame whether the point reaches an iframe there.
 * @param {Ctx} ctx @param {number} frameId @param {number} x @param {number} y  top-level point
 * @param {Map<number, {offset: [number, number]}>} offsets  from frameOffsets()
 */
async function checkAncestorsReach(ctx, frameId, x, y, offsets) {
  const frames = (await chrome.webNavigation.getAllFrames({ tabId: ctx.tabId })) || [];
  const parentOf = new Map(frames.map((f) => [f.frameId, f.parentFrameId]));
  for (let parent = parentOf.get(frameId) ?? -1; parent >= 0; parent = parentOf.get(parent) ?? -1) {
    const offset = offsets.get(parent)?.offset;
    if (!offset) return;
    const [lx, ly] = toFrameLocal([x, y], offset);
    const hit = await sendToFrame(ctx.tabId, parent, { kind: KIND.ACT_HIT_FRAME, x: lx, y: ly });
    if (hit.reaches) continue;
    const data = hit.occluder_local_ref ? { occluder_ref: globalRef(ctx.tabId, parent, hit.docId, hit.occluder_local_ref), occluder: hit.occluder } : { occluder: hit.occluder };
    throw new WaymarkError("occluded", `ref ${ctx.req.action.ref} is inside a frame covered by ${hit.occluder}`, data);
  }
}

/**
 * Attach the debugger if possible and, for pointer input, make sure the page still takes it;
 * the result records which path input takes. With `pressed`, the element a guarded press goes
 * to next: its document is probed only until it has answered once, after which the press
 * carries the pointer's move itself (guardedClick).
 * @param {Ctx} ctx @param {{x: number, y: number}=} point where the pointer is about to go
 * @param {RefTarget=} pressed
 * @returns {Promise<boolean>} true for trusted CDP input
 */
async function trusted(ctx, point, pressed) {
  try {
    await cdp.attach(ctx.tabId);
    cdp.setDialogPolicy(ctx.tabId, ctx.policy);
    const doc = pressed ? `${pressed.frameId}:${pressed.docId}` : undefined;
    ctx.probed = Boolean(point) && !(doc && cdp.answers(ctx.tabId, doc));
    if (point && ctx.probed) await cdp.probe(ctx.tabId, point.x, point.y, doc);
    ctx.result.path = "cdp";
    return true;
  } catch (e) {
    ctx.result.path = "synthetic";
    ctx.result.fallback_reason = errorMessage(e);
    return false;
  }
}

/**
 * A synthetic action in the frame, bounded: a page blocked by a dialog never answers.
 * @param {Ctx} ctx @param {RefTarget|null} t @param {import("./inject.js").FrameMessage} message
 */
async function synthetic(ctx, t, message) {
  if (t && ctx.guarded === t) ctx.guarded = null; // the frame ends the guard before a synthetic action
  const send = t ? toFrame(ctx, t, message) : sendToFrame(ctx.tabId, 0, message);
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  const blocked = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new WaymarkError("dialog_blocked", `the page stopped answering during the action (a JavaScript dialog or a busy script) and no debugger is available to close dialogs`)), SYNTHETIC_TIMEOUT_MS);
  });
  try {
    return await Promise.race([send, blocked]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A trusted click that lands on its target or not at all: the frame holds back a press whose
 * first event no longer reaches the target (something was drawn over it after the hit test),
 * and the action fails as `occluded` with what took its place, having clicked nothing, so it
 * can be tried again safely. The guard was armed by prepare; its verdict comes back with the
 * next message to the frame (settle's quiet, the caret, the checked state): see heldBack.
 * Called only after trusted(ctx, p, t), whose probe may have moved the pointer to `p` already.
 * A press that never arrived in the target's document fails the action as `press_lost` (heldBack).
 * @param {Ctx} ctx @param {{x: number, y: number}} p
 * @param {{clickCount?: number, button?: "left"|"right"}=} how
 */
async function guardedClick(ctx, p, how = {}) {
  const t = ctx.guarded;
  if (t && t.frameId !== 0) {
    // The browser routes input to an out-of-process frame by hit-test data the frame's
    // compositor sends; until it has (a frame just loaded or scrolled), a press there goes to
    // the parent and is lost. Press only once a move of the pointer has arrived in the frame.
    const deadline = performance.now() + ARRIVE_MS;
    let moved = ctx.probed;
    for (let tries = 0; ; tries++) {
      // Half a pixel aside on every other try, so each move is a move the page must dispatch.
      if (!moved) await cdp.probe(ctx.tabId, p.x + (tries % 2) * 0.5, p.y);
      if ((await toFrame(ctx, t, { kind: KIND.ACT_GUARD_MOVED })).moved || performance.now() >= deadline) break;
      moved = false;
      await new Promise((r) => setTimeout(r, 50));
    }
    ctx.probed = true;
  }
  await cdp.click(ctx.tabId, p.x, p.y, { ...how, pointerThere: ctx.probed });
  if (t) ctx.pressed = true;
}

/**
 * Read the guard's verdict (null: the frame and its guard are gone, the press landed and
 * navigated it away) and fail the action if the press was held back, or if guardedClick's
 * press never arrived in the target's document: the browser routed it elsewhere (into the page
 * around a frame whose hit-test data it did not have yet), so the target was not pressed, and
 * an `ok` would be a click that never happened.
 * @param {Ctx} ctx
 * @param {{intercepted: boolean, arrived?: boolean, stale?: boolean, occluder_local_ref?: number|null, occluder?: string}|null|undefined} verdict
 * @param {string=} named  what was pressed, for the error (the action's ref unless said)
 */
function heldBack(ctx, verdict, named = `ref ${ctx.req.action.ref}`) {
  const t = ctx.guarded;
  const pressed = ctx.pressed;
  ctx.guarded = null;
  ctx.pressed = false;
  if (!t || !verdict) return;
  if (!verdict.intercepted) {
    if (pressed && verdict.arrived === false) {
      throw new WaymarkError("press_lost", `the press on ${named} never arrived in its document: the browser delivered it elsewhere, so ${named} was not pressed and can be pressed again`, { arrived: false });
    }
    return;
  }
  if (verdict.stale) throw new WaymarkError("stale_ref", `${named} was replaced by a new element as the pointer reached it; the press was held back, nothing was clicked`);
  const data = { occluder: verdict.occluder, intercepted: true, ...(verdict.occluder_local_ref ? { occluder_ref: globalRef(ctx.tabId, t.frameId, t.docId, verdict.occluder_local_ref) } : {}) };
  throw new WaymarkError("occluded", `${named} was covered by ${verdict.occluder} between the check and the press; the press was held back, nothing was clicked`, data);
}

/**
 * Ask the guarded target's frame for the guard's verdict on its own (no other message to the
 * frame carried it) and fail the action if the press was held back or lost (see heldBack). No
 * answer: the press took the frame's document away, so it landed. Nothing to do when no guard
 * is armed.
 * @param {Ctx} ctx @param {string=} named  what was pressed, for the error (see heldBack)
 */
async function readGuard(ctx, named) {
  if (!ctx.guarded) return;
  const verdict = await toFrame(ctx, ctx.guarded, { kind: KIND.ACT_GUARD_RESULT }).catch(() => null);
  heldBack(ctx, verdict, named);
}

/** @param {Ctx} ctx @param {Click|DoubleClick|Hover} a */
async function pointer(ctx, a) {
  const t = target(ctx.tabId, a.ref);
  const p = await prepare(ctx, t, "pointer", { guard: a.type !== "hover" });
  if (await trusted(ctx, p, a.type === "hover" ? undefined : t)) {
    if (a.type === "hover") await cdp.hover(ctx.tabId, p.x, p.y);
    else await guardedClick(ctx, p, { clickCount: a.type === "double_click" ? 2 : 1 });
  } else {
    await synthetic(ctx, t, { kind: KIND.ACT_PERFORM, action: { type: a.type }, x: p.local.x, y: p.local.y });
  }
}

/** @param {Ctx} ctx @param {Type|Fill} a */
async function text(ctx, a) {
  if (typeof a.text !== "string") throw new WaymarkError("bad_action", `${a.type} needs text`);
  const t = target(ctx.tabId, a.ref);
  const secretOrigin = await admitSecret(ctx.tabId, t.frameId, ctx.req.secret_origins, (m) => toFrame(ctx, t, m));
  if (secretOrigin) ctx.result.secret_origin = secretOrigin;
  const p = await prepare(ctx, t, "edit", { guard: true });
  if (p.picker) {
    // Date and time fields are segmented pickers: typed text lands segment by segment in the
    // locale's order, so their value is set as a whole (with the input and change events).
    ctx.result.path = "synthetic";
    await synthetic(ctx, t, { kind: KIND.ACT_PERFORM, action: { type: "fill", text: a.text } });
    return;
  }
  if (!(await trusted(ctx, p, t))) {
    await synthetic(ctx, t, { kind: KIND.ACT_PERFORM, action: { type: a.type, text: a.text }, strokes: keystrokes(a.text, { multiline: Boolean(p.multiline) }) });
    return;
  }
  // Click to focus as a person would (it also focuses the right frame), then place the caret.
  await guardedClick(ctx, p);
  const caret = await toFrame(ctx, t, { kind: KIND.ACT_CARET, replace: a.type === "fill" });
  heldBack(ctx, caret.guard);
  notLeaving(ctx, "focusing the field");
  if (caret.needsEnd) await cdp.press(ctx.tabId, cdp.parseCombo("End"));
  notLeaving(ctx, "placing the caret");
  if (a.type === "fill" && !caret.empty) {
    // Cleared as a person clears it: all of it selected (the caret step), then Backspace, so the
    // page sees the key and the deletion before the new text's keys.
    await cdp.press(ctx.tabId, cdp.parseCombo("Backspace"));
    notLeaving(ctx, "clearing the field");
  }
  if (a.text) ctx.result.typed = await cdp.typeText(ctx.tabId, a.text, { multiline: Boolean(p.multiline), stop: () => notLeaving(ctx, "a key of the text", "the rest of it was not typed") });
}

/**
 * Stop a multi-part input once the page has begun to leave: keys or text sent while the old
 * document is being replaced can land in the next one, and Chrome can stop taking any trusted
 * input in that next document when an insertText races its commit (every later click on the tab
 * then hangs). The page's own navigation is the outcome the agent sees.
 * @param {Ctx} ctx @param {string} step @param {string=} typed  what of the text was typed by then
 */
function notLeaving(ctx, step, typed = "nothing was typed") {
  if (ctx.watcher.leaving()) {
    throw new WaymarkError("navigated", `the page began to navigate away after ${step}: ${typed}, so nothing lands on the next page`);
  }
}

/** @param {Ctx} ctx @param {Press} a */
async function press(ctx, a) {
  const combo = cdp.parseCombo(String(a.key || ""));
  const t = a.ref ? target(ctx.tabId, a.ref) : null;
  if (t) {
    ctx.frameId = t.frameId;
    await toFrame(ctx, t, { kind: KIND.ACT_FOCUS });
    notLeaving(ctx, "focusing the element");
  }
  const clip = forms.clipboardOp(combo);
  if (clip) {
    await forms.pressClipboard(ctx, DISPATCH, clip, t);
    return;
  }
  if (await trusted(ctx)) {
    await cdp.press(ctx.tabId, combo);
    return;
  }
  await ensureInjected(ctx.tabId);
  await synthetic(ctx, t, { kind: KIND.ACT_PERFORM, action: { type: "press" }, key: { key: combo.key.key, code: combo.key.code, keyCode: combo.key.keyCode, modifiers: combo.modifiers } });
}

/** @param {Ctx} ctx @param {Select} a */
async function select(ctx, a) {
  if (typeof a.value !== "string") throw new WaymarkError("bad_action", "select needs a value");
  const t = target(ctx.tabId, a.ref);
  const p = await prepare(ctx, t, "select");
  if (!p.native) {
    await forms.selectCustom(ctx, DISPATCH, t, a);
    return;
  }
  // A native select's popup is browser UI that input events cannot drive: the option is chosen in the DOM.
  ctx.result.path = "synthetic";
  const chosen = await toFrame(ctx, t, { kind: KIND.ACT_SELECT, value: a.value });
  ctx.result.selected = chosen;
}

/** @param {Ctx} ctx @param {Check|Uncheck} a */
async function check(ctx, a) {
  const want = a.type === "check";
  const t = target(ctx.tabId, a.ref);
  const p = await prepare(ctx, t, "check", { guard: true, want });
  if (p.checked === want) {
    ctx.result.already = true;
    return;
  }
  if (await trusted(ctx, p, t)) await guardedClick(ctx, p);
  else await synthetic(ctx, t, { kind: KIND.ACT_PERFORM, action: { type: a.type } });
  const after = await toFrame(ctx, t, { kind: KIND.ACT_CHECKED });
  heldBack(ctx, after.guard);
  if (after.replaced) {
    ctx.result.replaced = true;
    return;
  }
  if (after.checked !== want) throw new WaymarkError("not_checkable", `clicking did not make the element ${want ? "checked" : "unchecked"}${!want ? " (a radio button cannot be unchecked by clicking it)" : ""}`);
}

/** @param {Ctx} ctx @param {Scroll} a */
async function scroll(ctx, a) {
  const t = a.ref ? target(ctx.tabId, a.ref) : null;
  const message = { kind: KIND.ACT_SCROLL, direction: a.direction || "down", amount: a.amount ?? null };
  ctx.result.path = "synthetic";
  if (t) {
    ctx.frameId = t.frameId;
    ctx.result.scroll = await toFrame(ctx, t, message);
  } else {
    await ensureInjected(ctx.tabId);
    ctx.result.scroll = await sendToFrame(ctx.tabId, 0, message);
  }
}

/** @param {Ctx} ctx @param {ExtractAction} a */
async function extract(ctx, a) {
  const t = a.ref ? target(ctx.tabId, a.ref) : null;
  const message = { kind: KIND.ACT_EXTRACT, max_chars: a.max_chars ?? 4000 };
  // A PDF in Chrome's viewer has no text a script can read: its bytes go to the host, which reads them.
  const pdf = t ? null : await pdfBytes(ctx.tabId);
  if (pdf !== null) {
    ctx.result.pdf_b64 = pdf;
    ctx.result.text = "";
    return;
  }
  // Without a ref, the whole tab: every readable frame's text, not only the top document's.
  const read = t ? await toFrame(ctx, t, message) : await pageText(ctx.tabId, message.max_chars, Boolean(a.whole));
  ctx.result.text = read.text;
  ctx.result.truncated = read.truncated;
}

/** @param {Wait} a */
async function wait(a) {
  if (a.until) throw new WaymarkError("bad_action", "wait-until predicates are evaluated by the host, not the extension");
  await new Promise((r) => setTimeout(r, Math.min(Math.max(0, Number(a.ms) || 0), 60_000)));
}

/**
 * Answer the dialog the page waits on; its effect (a deletion, a rename) then settles as a click's.
 * @param {Ctx} ctx @param {AnswerDialog} a
 */
async function answerDialog(ctx, a) {
  ctx.result.path = "cdp";
  await cdp.answerDialog(ctx.tabId, a.accept === true, a.text ?? null);
}

/**
 * Tab-level actions carried out through the tabs API.
 * @param {Ctx} ctx @param {Navigate|Back|Forward|Reload|NewTab|SwitchTab|CloseTab} a
 */
async function browserAction(ctx, a) {
  const { tabId, result } = ctx;
  result.path = "browser";
  // Attached, the debugger answers a beforeunload dialog the navigation raises (else it blocks).
  if (["navigate", "back", "forward", "reload", "close_tab"].includes(a.type)) await cdp.attach(tabId).then(() => cdp.setDialogPolicy(tabId, ctx.policy), () => {});
  switch (a.type) {
    case "navigate": {
      const url = admitUrl(ctx.req.gate, a.url);
      await chrome.tabs.update(tabId, { url });
      return;
    }
    case "back": case "forward": {
      // Chrome's own back skips entries the user never interacted with (its anti-hijacking rule),
      // which an agent's pages often are: step exactly one entry through the debugger when it can.
      if (cdp.isAttached(tabId)) {
        const history = await cdp.send(tabId, "Page.getNavigationHistory");
        const entry = history.entries[history.currentIndex + (a.type === "back" ? -1 : 1)];
        if (!entry) throw new WaymarkError("no_history", `there is no page to go ${a.type} to`);
        await cdp.send(tabId, "Page.navigateToHistoryEntry", { entryId: entry.id });
        return;
      }
      try {
        await (a.type === "back" ? chrome.tabs.goBack(tabId) : chrome.tabs.goForward(tabId));
      } catch (e) {
        throw new WaymarkError("no_history", `cannot go ${a.type}: ${errorMessage(e)}`);
      }
      return;
    }
    case "reload": await chrome.tabs.reload(tabId); return;
    case "new_tab": {
      const url = a.url ? admitUrl(ctx.req.gate, a.url) : "about:blank";
      const tab = await chrome.tabs.create({ url, openerTabId: tabId, active: true });
      if (tab.id === undefined) throw new WaymarkError("no_such_tab", "Chrome did not open the tab");
      // The URL itself was admitted above; the rules catch what it redirects to or loads.
      await applyGate(ctx.req.gate, tab.id);
      result.new_tab = { tab_id: tab.id, url: tab.pendingUrl || tab.url || url };
      result.tab_id = tab.id;
      return;
    }
    case "switch_tab": {
      admitTab(ctx.req.gate, a.tab_id);
      const tab = await requireTab(a.tab_id);
      await chrome.tabs.update(a.tab_id, { active: true });
      await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
      result.tab_id = a.tab_id;
      return;
    }
    case "close_tab": {
      const closing = a.tab_id ?? tabId;
      if (closing !== tabId) admitTab(ctx.req.gate, closing);
      const tab = await requireTab(closing);
      await chrome.tabs.remove(closing);
      if (closing === tabId) {
        // Continue where Chrome's focus went: the tab that opened this one, else the window's active tab.
        const opener = tab.openerTabId !== undefined ? await chrome.tabs.get(tab.openerTabId).catch(() => null) : null;
        const [active] = await chrome.tabs.query({ active: true, windowId: tab.windowId });
        const next = opener || active || (await chrome.tabs.query({ active: true, lastFocusedWindow: true }))[0];
        result.tab_id = next?.id ?? null;
      }
      return;
    }
  }
}

/**
 * The steps the handlers of forms.js and pointer.js act through, passed to them so that they
 * and this module do not import each other.
 */
const DISPATCH = { target, toFrame, prepare, trusted, synthetic, notLeaving, guardedClick, heldBack, readGuard };
/** @typedef {typeof DISPATCH} Dispatch */

/**
 * The browser's handler of each action the registry (host/core/actions.py) says the extension
 * carries out; tsc fails while one has none.
 * @type {{[K in BrowserActionType]: (ctx: Ctx, a: Extract<Action, {type: K}>) => Promise<unknown>}}
 */
const HANDLERS = {
  click: pointer, double_click: pointer, hover: pointer,
  type: text, fill: text,
  press, select,
  check, uncheck: check,
  upload_file: (ctx, a) => forms.uploadFile(ctx, DISPATCH, a), select_text: (ctx, a) => forms.selectText(ctx, DISPATCH, a),
  scroll, extract,
  wait: (_ctx, a) => wait(a),
  navigate: browserAction, back: browserAction, forward: browserAction, reload: browserAction,
  new_tab: browserAction, switch_tab: browserAction, close_tab: browserAction,
  drag: (ctx, a) => pointerActions.drag(ctx, DISPATCH, a), right_click: (ctx, a) => pointerActions.rightClick(ctx, DISPATCH, a),
  click_at: (ctx, a) => pointerActions.atPoint(ctx, DISPATCH, a), double_click_at: (ctx, a) => pointerActions.atPoint(ctx, DISPATCH, a),
  move_to: (ctx, a) => pointerActions.atPoint(ctx, DISPATCH, a), scroll_at: (ctx, a) => pointerActions.atPoint(ctx, DISPATCH, a),
  drag_at: (ctx, a) => pointerActions.dragAt(ctx, DISPATCH, a),
  answer_dialog: answerDialog,
};
