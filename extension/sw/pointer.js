// @ts-check
/**
 * drag, right_click and the pointer at screenshot coordinates (click_at, double_click_at,
 * move_to, drag_at, scroll_at). Ref actions go through dispatch's own steps (prepare: scroll
 * into view, actionability, the press guard); coordinate actions map the screenshot's pixels to
 * top-level CSS pixels with the scale of the screenshot the model was shown (shared/coords.js),
 * find the frame under the point by hit-testing down through the iframes there, and report
 * which refs cover the point. Input is trusted CDP input through the debugger; without it, the
 * frame fires synthetic events (drags and the wheel have no synthetic form: they fail as
 * debugger_unavailable).
 */
import * as cdp from "./cdp.js";
import { childFrameOffset, fromScreenshot, samePoint, toFrameLocal } from "../shared/coords.js";
import { ensureInjected, sendToFrame } from "./inject.js";
import { WaymarkError } from "./native.js";
import { errorCode, errorMessage } from "../shared/errors.js";
import { globalRef } from "./refs.js";
import { frameOffsets } from "./snapshot.js";
import { screenshotScale } from "./overlay.js";
import { KIND } from "../shared/actions.js";

/**
 * @typedef {import("./dispatch.js").Ctx} Ctx
 * @typedef {import("./dispatch.js").Dispatch} Dispatch
 * @typedef {import("./refs.js").RefTarget} RefTarget
 * @typedef {import("../shared/actions.js").Drag} Drag
 * @typedef {import("../shared/actions.js").RightClick} RightClick
 * @typedef {import("../shared/actions.js").ClickAt} ClickAt
 * @typedef {import("../shared/actions.js").DoubleClickAt} DoubleClickAt
 * @typedef {import("../shared/actions.js").MoveTo} MoveTo
 * @typedef {import("../shared/actions.js").DragAt} DragAt
 * @typedef {import("../shared/actions.js").ScrollAt} ScrollAt
 * @typedef {import("../shared/actions.js").PointerHit} PointerHit
 * @typedef {{frameId: number, docId: string, local: [number, number], hit: PointerHit}} Located
 */

/** Deepest nesting of iframes a hit test descends through. */
const MAX_FRAME_DEPTH = 16;

/**
 * A message to one frame's content scripts, injecting them once when the frame has none yet.
 * @param {number} tabId @param {number} frameId @param {import("./inject.js").FrameMessage} message
 */
async function ask(tabId, frameId, message) {
  try {
    return await sendToFrame(tabId, frameId, message);
  } catch (e) {
    const code = errorCode(e);
    if (code !== "frame_unreachable" && code !== "unknown_kind") throw e;
    await ensureInjected(tabId);
    return sendToFrame(tabId, frameId, message);
  }
}

/**
 * What is at a point of the tab's top-level viewport (CSS pixels): hit-tested in the top
 * document, then inside each iframe the point falls on (same- or cross-origin), down to the
 * document that draws the point; `hit.refs` are the refs covering it at every level, innermost first.
 * @param {Ctx} ctx @param {number} x @param {number} y
 * @returns {Promise<Located>}
 */
export async function hitAt(ctx, x, y) {
  let frameId = 0;
  /** @type {[number, number]} */
  let offset = [0, 0];
  /** @type {number[][]} per frame level, outermost first: the refs covering the point there, innermost first */
  const levels = [];
  /** @type {Map<number, {offset: [number, number]}>|null} */
  let offsets = null;
  /** @type {chrome.webNavigation.GetAllFrameResultDetails[]} */
  let frames = [];
  /** @type {Located|null} what the enclosing document drew there: the answer when a child frame has nothing */
  let outer = null;
  for (let depth = 0; depth < MAX_FRAME_DEPTH; depth++) {
    const local = toFrameLocal([x, y], offset);
    const hit = await ask(ctx.tabId, frameId, { kind: KIND.ACT_HIT_POINT, x: local[0], y: local[1] });
    if (hit.outside) {
      if (outer) return outer;
      throw new WaymarkError("outside_viewport", `the point (${Math.round(x)}, ${Math.round(y)}) is outside the page's viewport (${hit.width}x${hit.height} CSS pixels)`);
    }
    levels.push(hit.refs.map((/** @type {number} */ l) => globalRef(ctx.tabId, frameId, hit.docId, l)));
    const ordered = levels.slice().reverse().flat();
    const here = { frameId, docId: String(hit.docId), local, hit: { x: round(x), y: round(y), frame: frameId, ref: ordered[0] ?? null, refs: ordered, element: String(hit.element) } };
    let child = null;
    if (hit.frameBox) {
      offsets = offsets || await frameOffsets(ctx.tabId);
      if (!frames.length) frames = (await chrome.webNavigation.getAllFrames({ tabId: ctx.tabId })) || [];
      const origin = childFrameOffset(offset, hit.frameBox);
      const known = /** @type {Map<number, {offset: [number, number]}>} */ (offsets);
      child = frames.find((f) => f.parentFrameId === frameId && known.has(f.frameId) && samePoint(/** @type {{offset: [number, number]}} */ (known.get(f.frameId)).offset, origin));
    }
    if (!child) return here;
    outer = here;
    frameId = child.frameId;
    offset = /** @type {{offset: [number, number]}} */ (/** @type {Map<number, {offset: [number, number]}>} */ (offsets).get(frameId)).offset;
  }
  throw new WaymarkError("not_found", `the frames at (${Math.round(x)}, ${Math.round(y)}) are nested too deeply to hit-test`);
}

/** @param {number} v */
function round(v) {
  return Math.round(v * 10) / 10;
}

/**
 * A point of the screenshot the model was shown, in top-level CSS pixels.
 * @param {Ctx} ctx @param {number} x @param {number} y  screenshot pixels
 * @returns {Promise<{x: number, y: number}>}
 */
async function fromShot(ctx, x, y) {
  const tab = await chrome.tabs.get(ctx.tabId);
  const scale = await screenshotScale(tab, async () => (await ask(ctx.tabId, 0, { kind: KIND.ACT_HIT_POINT, x: -1, y: -1 })).width);
  const [cx, cy] = fromScreenshot([x, y], scale);
  return { x: cx, y: cy };
}

/**
 * The trusted drag between two top-level points, watching the source frame for an HTML5 drag.
 * @param {Ctx} ctx @param {{frameId: number, docId: string}} source @param {{x: number, y: number}} from @param {{x: number, y: number}} to
 */
async function trustedDrag(ctx, source, from, to) {
  const watch = { docId: source.docId };
  await ask(ctx.tabId, source.frameId, { kind: KIND.ACT_DRAG_WATCH, ...watch });
  const started = async () => Boolean((await ask(ctx.tabId, source.frameId, { kind: KIND.ACT_DRAG_STARTED, ...watch })).started);
  // Where the drop lands is what is under the pointer as it lets go, before the page moves things.
  const atRelease = async () => { ctx.result.drop = (await hitAt(ctx, to.x, to.y)).hit; };
  ctx.result.drag = await cdp.drag(ctx.tabId, from, to, started, atRelease);
}

/**
 * `drag`: from a ref onto another ref, or by an offset in CSS pixels. The source is scrolled
 * into view and checked as a click's target is; the drop target must be in view with it. The
 * result's `drop` names what was under the pointer as it let go; `drag` says "mouse" or "html5".
 * @param {Ctx} ctx @param {Dispatch} d @param {Drag} a
 */
export async function drag(ctx, d, a) {
  const t = d.target(ctx.tabId, a.ref);
  const from = await d.prepare(ctx, t, "pointer", { guard: true });
  let to = { x: from.x + (a.dx ?? 0), y: from.y + (a.dy ?? 0) };
  if (a.to_ref !== null && a.to_ref !== undefined) {
    const dest = d.target(ctx.tabId, a.to_ref);
    try {
      // Scrolling the drop target into view could move the source out of it: it is only checked.
      const q = await d.prepare(ctx, dest, "pointer", { scroll: false });
      to = { x: q.x, y: q.y };
    } catch (e) {
      if (errorCode(e) !== "not_visible") throw e;
      throw new WaymarkError("not_visible", `the drop target ref ${a.to_ref} is not in view together with ref ${a.ref} (${errorMessage(e)}): scroll so both show, or drag by dx/dy`);
    } finally {
      ctx.frameId = t.frameId;
    }
  }
  if (!(await d.trusted(ctx, from))) {
    throw new WaymarkError("debugger_unavailable", `drag needs trusted input through the debugger, which is unavailable: ${ctx.result.fallback_reason}`);
  }
  await trustedDrag(ctx, t, from, to);
}

/**
 * `right_click`: a trusted right button press and release on the ref (contextmenu fires).
 * @param {Ctx} ctx @param {Dispatch} d @param {RightClick} a
 */
export async function rightClick(ctx, d, a) {
  const t = d.target(ctx.tabId, a.ref);
  const p = await d.prepare(ctx, t, "pointer", { guard: true });
  if (await d.trusted(ctx, p, t)) await d.guardedClick(ctx, p, { button: "right" });
  else await d.synthetic(ctx, t, { kind: KIND.ACT_POINT_PERFORM, action: { type: "right_click" }, x: p.local.x, y: p.local.y });
}

/**
 * click_at, double_click_at, move_to and scroll_at: the pointer at a point of the screenshot.
 * The result's `hit` names what was there before the action.
 * @param {Ctx} ctx @param {Dispatch} d @param {ClickAt|DoubleClickAt|MoveTo|ScrollAt} a
 */
export async function atPoint(ctx, d, a) {
  const p = await fromShot(ctx, a.x, a.y);
  const where = await hitAt(ctx, p.x, p.y);
  ctx.frameId = where.frameId;
  ctx.result.hit = where.hit;
  ctx.preparedAt = performance.now();
  const here = { frameId: where.frameId, docId: where.docId, localRef: 0 };
  const local = { kind: KIND.ACT_POINT_PERFORM, action: { type: a.type }, x: where.local[0], y: where.local[1] };
  if (a.type === "scroll_at") {
    await wheelAt(ctx, d, a, p, where);
    return;
  }
  if (!(await d.trusted(ctx, p))) {
    await d.synthetic(ctx, here, local);
    return;
  }
  if (a.type === "move_to") await cdp.hover(ctx.tabId, p.x, p.y);
  else await cdp.click(ctx.tabId, p.x, p.y, { clickCount: a.type === "double_click_at" ? 2 : 1, pointerThere: true });
}

/**
 * `scroll_at`: a trusted wheel at the point, so the scroller under the pointer scrolls as it would
 * for a person and the page's wheel listeners see it. A wheel has no synthetic form that scrolls
 * (an untrusted WheelEvent moves nothing): without the debugger it fails as debugger_unavailable.
 * The result's `scroll` says which scroller moved and by how much.
 * @param {Ctx} ctx @param {Dispatch} d @param {ScrollAt} a @param {{x: number, y: number}} p  top-level CSS pixels @param {Located} where
 */
async function wheelAt(ctx, d, a, p, where) {
  const direction = a.direction || "down";
  const here = { frameId: where.frameId, docId: where.docId, localRef: 0 };
  if (!(await d.trusted(ctx, p))) {
    throw new WaymarkError("debugger_unavailable", `scroll_at turns the mouse wheel through the debugger, which is unavailable: ${ctx.result.fallback_reason}; use scroll with a ref instead`);
  }
  const begun = await d.toFrame(ctx, here, { kind: KIND.ACT_WHEEL_BEGIN, x: where.local[0], y: where.local[1], direction });
  const amount = a.amount ?? begun.amount;
  const sign = direction === "up" || direction === "left" ? -1 : 1;
  const vertical = direction === "up" || direction === "down";
  await cdp.wheel(ctx.tabId, p.x, p.y, vertical ? 0 : sign * amount, vertical ? sign * amount : 0);
  ctx.result.scroll = await d.toFrame(ctx, here, { kind: KIND.ACT_WHEEL_END });
}

/**
 * `drag_at`: press at a point of the screenshot, drag to another, release.
 * @param {Ctx} ctx @param {Dispatch} d @param {DragAt} a
 */
export async function dragAt(ctx, d, a) {
  const from = await fromShot(ctx, a.x, a.y);
  const to = await fromShot(ctx, a.to_x, a.to_y);
  const start = await hitAt(ctx, from.x, from.y);
  await hitAt(ctx, to.x, to.y); // the release point must be on the page too
  ctx.frameId = start.frameId;
  ctx.result.hit = start.hit;
  ctx.preparedAt = performance.now();
  if (!(await d.trusted(ctx, from))) {
    throw new WaymarkError("debugger_unavailable", `drag_at needs trusted input through the debugger, which is unavailable: ${ctx.result.fallback_reason}`);
  }
  await trustedDrag(ctx, start, from, to);
}
