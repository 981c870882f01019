// @ts-check
/**
 * Snapshots of a tab: ask every frame's walker (content/snapshot.js) for its items, stitch
 * them into one document-ordered tree with top-level coordinates (shared/coords.js), give
 * every element its global ref (refs.js), put the viewport first, paginate the model text,
 * and optionally attach the numbered-overlay screenshot.
 *
 * Public API (stable; dispatch attaches fresh snapshots with it):
 *   takeSnapshot(tabId, options) -> Snapshot JSON exactly as host/core/snapshot.py describes it
 *   frameOffsets(tabId) -> Map<frameId, {offset, clip}> for click points in child frames
 *   registerSnapshotHandler(channel) -> answers the host's `snapshot` request
 *   askAllFrames(tabId, message), childrenByParent(answers) -> one message to every frame's
 *     content scripts, and the answers grouped under their parent frame (page_text.js)
 */
import { errorCode, errorMessage } from "../shared/errors.js";
import { WaymarkError } from "./native.js";
import { ensureInjected, sendToFrame } from "./inject.js";
import { globalRef, forgetDeadDocuments, forgetRefs, refGeneration, resolveRef, tableSize, wasIssued } from "./refs.js";
import { childFrameOffset, intersect, isInside, roundBox, toTopLevel, viewportBox } from "../shared/coords.js";
import { oneLine, paginate, sanitizeOrigin, sanitizeUrl, withoutEchoedHeadings } from "./snapshot_text.js";
import { overlayScreenshot } from "./overlay.js";
import { thumbnail } from "./thumbnail.js";
import { errorPageSnapshot, loadError } from "./load_errors.js";
import { KIND } from "../shared/actions.js";
import { tabDownloads } from "./downloads.js";
import { collectPageDialogs, dialogLines, dialogSnapshot, heldDialog, recentDialogs } from "./dialogs.js";

/** @typedef {import("./snapshot_text.js").Item} Item */
/** @typedef {import("./snapshot_text.js").ElementItem} ElementItem */
/** @typedef {import("../shared/coords.js").Box} Box */
/** @typedef {import("../shared/coords.js").Point} Point */

/** @typedef {import("../shared/actions.js").SnapshotOptions} SnapshotOptions */
/** @typedef {import("../shared/actions.js").Snapshot} Snapshot */
/** @typedef {import("./inject.js").FrameMessage} FrameMessage */

/**
 * What a frame's walker (content/snapshot.js) reports, boxes in the frame's own viewport: an
 * element (`l` its local ref), a heading, a live region's text, or a child frame's placeholder (`index` among the
 * frame's children).
 * @typedef {{t: "e", l: number, role: string, name: string, box: Box, value?: string,
 *   states?: Record<string, string|number|boolean>, options?: string[], field?: string, placeholder?: string, href?: string,
 *   form?: number}} WalkElement
 * @typedef {{t: "h", level: number, text: string, box: Box}} WalkHeading
 * @typedef {{t: "s", role: string, text: string, box: Box}} WalkLive
 * @typedef {{t: "f", index: number, box: Box, hidden: boolean, src: string}} WalkFrame
 * @typedef {WalkElement|WalkHeading|WalkLive|WalkFrame} WalkItem
 */

/** How long one frame may take to answer before it is reported unreadable. */
const FRAME_TIMEOUT_MS = 10000;
/** How long injection into all frames may take before the snapshot goes ahead without the stragglers. */
const INJECT_TIMEOUT_MS = 5000;

/**
 * @typedef {Object} FrameResult
 * @property {string} docId
 * @property {string} url
 * @property {string} title
 * @property {number} frameIndex
 * @property {{width: number, height: number, scroll_x: number, scroll_y: number, page_width: number, page_height: number, dpr: number}} viewport
 * @property {WalkItem[]} items
 * @property {{candidates: number, hidden: number, occluded: number, headings: number}} counts
 * @property {number} ms
 * @property {number[]=} dropped  local refs the frame's registry dropped since its last snapshot
 * @property {boolean=} pdf  the document is a PDF in Chrome's viewer (its text is read by extract, not walked)
 */

/** @typedef {{frameId: number, parentFrameId: number, url: string, result: FrameResult|null, error: string|null}} FrameAnswer */

/**
 * The tab a request means: the given id, or the active tab of the last focused window.
 * @param {number|null|undefined} tabId
 * @returns {Promise<chrome.tabs.Tab>}
 */
export async function resolveTab(tabId) {
  if (tabId === null || tabId === undefined) {
    const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
    if (!tab || tab.id === undefined) throw new WaymarkError("no_such_tab", "there is no active tab");
    return tab;
  }
  if (!Number.isInteger(tabId)) throw new WaymarkError("bad_params", "tab_id must be an integer or null");
  try {
    return await chrome.tabs.get(tabId);
  } catch {
    throw new WaymarkError("no_such_tab", `there is no tab ${tabId}`);
  }
}

/**
 * @template T
 * @param {Promise<T>} promise @param {number} ms @param {string} what
 * @returns {Promise<T>}
 */
function withTimeout(promise, ms, what) {
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new WaymarkError("timeout", `${what} did not answer within ${ms} ms`)), ms);
  });
  return /** @type {Promise<T>} */ (Promise.race([promise, timeout]).finally(() => clearTimeout(timer)));
}

/**
 * Ask one frame's walker; `missing` when the frame has no walker yet (never injected, or a
 * document that replaced the injected one).
 * @param {number} tabId @param {chrome.webNavigation.GetAllFrameResultDetails} f @param {FrameMessage} message
 * @returns {Promise<FrameAnswer & {missing: boolean}>}
 */
async function askFrame(tabId, f, message) {
  try {
    const result = await withTimeout(sendToFrame(tabId, f.frameId, message), FRAME_TIMEOUT_MS, `frame ${f.frameId}`);
    return { frameId: f.frameId, parentFrameId: f.parentFrameId, url: f.url, result, error: null, missing: false };
  } catch (e) {
    const code = errorCode(e);
    const missing = code === "frame_unreachable" || code === "unknown_kind";
    return { frameId: f.frameId, parentFrameId: f.parentFrameId, url: f.url, result: null, error: errorMessage(e), missing };
  }
}

/**
 * Ask every frame of the tab for its walk. Frames already holding the walker answer at once;
 * only when some do not is the tab injected (inject.js) and those frames asked again, so a
 * warm snapshot costs no injection.
 * @param {number} tabId @param {FrameMessage} message
 * @returns {Promise<FrameAnswer[]>}
 */
export async function askAllFrames(tabId, message) {
  const frames = (await chrome.webNavigation.getAllFrames({ tabId })) || [];
  let answers = await Promise.all(frames.map((f) => askFrame(tabId, f, message)));
  if (!frames.length || answers.some((a) => a.missing)) {
    try {
      await withTimeout(ensureInjected(tabId), INJECT_TIMEOUT_MS, "injection");
    } catch (e) {
      // A frame that stalls injection must not stall the snapshot: frames that have the
      // walker answer, the rest become unreadable markers.
      if (errorCode(e) !== "timeout") throw e;
    }
    const answered = new Map(answers.filter((a) => a.result).map((a) => [a.frameId, a]));
    const now = (await chrome.webNavigation.getAllFrames({ tabId })) || [];
    answers = await Promise.all(now.map((f) => answered.get(f.frameId) || askFrame(tabId, f, message)));
  }
  return answers;
}

/**
 * Pair a parent's iframe placeholder with the child frame that answered: both sides report
 * the frame's index in the parent's `window.frames`.
 * @param {FrameAnswer[]} answers
 */
export function childrenByParent(answers) {
  /** @type {Map<number, FrameAnswer[]>} */
  const map = new Map();
  for (const a of answers) {
    if (a.parentFrameId < 0) continue;
    const list = map.get(a.parentFrameId) || [];
    list.push(a);
    map.set(a.parentFrameId, list);
  }
  return map;
}

/**
 * Stitch per-frame answers into one document-ordered list with top-level boxes and global refs.
 * @param {number} tabId @param {FrameAnswer[]} answers
 */
function stitch(tabId, answers) {
  const top = answers.find((a) => a.frameId === 0);
  if (!top || !top.result) throw new WaymarkError("frame_unreachable", `the page of tab ${tabId} did not answer: ${top?.error || "no top frame"}`);
  const children = childrenByParent(answers);
  const vp = top.result.viewport;
  /** @type {Item[]} */
  const items = [];
  /** @type {Set<number>} */
  const placed = new Set();
  // Refs count in the order elements were first seen; `order` is where each one stands in the
  // page now, so "the second button" still means the second after an earlier one appeared late.
  let order = 0;
  const stats = { frames: answers.length, unreadable_frames: 0, hidden: 0, occluded: 0, candidates: 0, content_ms_max: 0 };

  /**
   * @param {FrameAnswer} answer @param {Point} offset @param {Box} clip
   */
  const emit = (answer, offset, clip) => {
    placed.add(answer.frameId);
    const r = /** @type {FrameResult} */ (answer.result);
    stats.hidden += r.counts.hidden;
    stats.occluded += r.counts.occluded;
    stats.candidates += r.counts.candidates;
    stats.content_ms_max = Math.max(stats.content_ms_max, r.ms);
    const kids = children.get(answer.frameId) || [];
    for (const it of r.items) {
      if (it.t === "e") {
        const bbox = roundBox(toTopLevel(it.box, offset));
        /** @type {ElementItem} */
        const el = {
          kind: "element", ref: globalRef(tabId, answer.frameId, r.docId, it.l), order: order++, role: it.role, name: it.name,
          value: it.value ?? null, states: it.states || {}, bbox, frame: answer.frameId, doc: r.docId,
          in_viewport: isInside(bbox, clip),
        };
        if (it.href !== undefined) el.href = sanitizeUrl(it.href);
        if (it.options) el.options = it.options;
        if (it.field) el.field = it.field;
        if (it.placeholder) el.placeholder = it.placeholder;
        if (it.form !== undefined) el.form = it.form;
        items.push(el);
      } else if (it.t === "h") {
        items.push({ kind: "heading", level: it.level, text: it.text, in_viewport: isInside(toTopLevel(it.box, offset), clip) });
      } else if (it.t === "s") {
        items.push({ kind: "live", role: it.role, text: it.text, in_viewport: isInside(toTopLevel(it.box, offset), clip) });
      } else if (it.t === "f") {
        if (it.hidden) {
          for (const k of kids) if (k.result && k.result.frameIndex === it.index) placed.add(k.frameId);
          continue;
        }
        const box = toTopLevel(it.box, offset);
        const childClip = intersect(clip, box);
        const child = kids.find((k) => k.result && k.result.frameIndex === it.index && !placed.has(k.frameId));
        if (child) {
          emit(child, childFrameOffset(offset, it.box), childClip || [box[0], box[1], 0, 0]);
        } else {
          const unanswered = kids.find((k) => !k.result && !placed.has(k.frameId));
          if (unanswered) placed.add(unanswered.frameId);
          stats.unreadable_frames++;
          items.push({ kind: "frame", origin: sanitizeOrigin(unanswered?.url || it.src), in_viewport: childClip !== null, frame: unanswered?.frameId ?? null });
        }
      }
    }
  };
  emit(top, [0, 0], viewportBox(vp.width, vp.height));

  // Frames no placeholder claimed (e.g. inside a subtree the parent could not walk): keep
  // their elements (recall) at the end, without a trustworthy position.
  for (const a of answers) {
    if (placed.has(a.frameId)) continue;
    if (a.result) {
      const start = items.length;
      emit(a, [0, 0], [0, 0, 0, 0]);
      for (let i = start; i < items.length; i++) items[i].in_viewport = false;
    } else {
      placed.add(a.frameId);
      stats.unreadable_frames++;
      items.push({ kind: "frame", origin: sanitizeOrigin(a.url), in_viewport: false, frame: a.frameId });
    }
  }
  return { items, stats, top: top.result };
}

/**
 * @param {SnapshotOptions} options
 * @returns {{max_chars: number, offset: number, screenshot: boolean, thumbnail: boolean, occlusion: boolean}}
 */
function normaliseOptions(options) {
  const maxChars = options.max_chars ?? 20000;
  const offset = options.offset ?? 0;
  if (!Number.isInteger(maxChars) || maxChars < 200) throw new WaymarkError("bad_params", "max_chars must be an integer >= 200");
  if (!Number.isInteger(offset) || offset < 0) throw new WaymarkError("bad_params", "offset must be an integer >= 0");
  return { max_chars: maxChars, offset, screenshot: Boolean(options.screenshot), thumbnail: Boolean(options.thumbnail), occlusion: options.occlusion !== false };
}

/**
 * Take a snapshot of a tab: the Snapshot JSON of host/core/snapshot.py (url, title, viewport,
 * elements of this page with ref/order/role/name/value/states/bbox/frame/doc/in_viewport/href,
 * text, next_offset, page_overflow, stats, tab_id, screenshot_b64, thumbnail_b64).
 * @param {number|null|undefined} tabId  null: the active tab of the last focused window
 * @param {SnapshotOptions=} options
 * @returns {Promise<Snapshot>}
 */
export async function takeSnapshot(tabId, options = {}) {
  const t0 = performance.now();
  const opts = normaliseOptions(options);
  const tab = await resolveTab(tabId ?? options.tab_id);
  const id = /** @type {number} */ (tab.id);
  const failure = await loadError(tab);
  if (failure) return errorPageSnapshot(tab, failure);
  const open = heldDialog(id);
  if (open) return dialogSnapshot(tab, open.record);
  await collectPageDialogs(id);
  const asked = performance.now();
  const answers = await askAllFrames(id, { kind: KIND.SNAPSHOT, occlusion: opts.occlusion });
  const answered = performance.now();
  // Refs of gone documents and elements are forgotten before new ones are given: a tab that
  // went to another page numbers its elements from 1 again (refs.js generations).
  if (answers.some((a) => a.frameId === 0 && a.result)) {
    forgetDeadDocuments(id, new Set(answers.flatMap((a) => (a.result ? [a.result.docId] : []))));
    for (const a of answers) if (a.result?.dropped?.length) forgetRefs(id, a.frameId, a.result.docId, a.result.dropped);
  }
  const { items, stats, top } = stitch(id, answers);
  const stitched = performance.now();

  // Viewport first (document order within each part), then the rest.
  const shown = withoutEchoedHeadings(items);
  const inView = shown.filter((x) => x.in_viewport);
  const outside = shown.filter((x) => !x.in_viewport);
  const ordered = inView.concat(outside);
  const url = sanitizeUrl(top.url);
  const vp = top.viewport;
  // The title and URL are not repeated here: every reader of the text is shown them beside it.
  const header = [
    `viewport ${vp.width}x${vp.height} scroll=${vp.scroll_x},${vp.scroll_y} page=${vp.page_width}x${vp.page_height}` +
      (stats.occluded ? ` occluded=${stats.occluded}` : ""),
    ...dialogLines(recentDialogs(id)),
    ...(top.pdf ? ["this tab shows a PDF in the browser's viewer: extract (without a ref) reads its text"] : []),
  ];
  let pageOrigin = "";
  try {
    pageOrigin = new URL(top.url).origin;
  } catch {
    /* not a URL with an origin */
  }
  const page = paginate({ header, items: ordered, viewportCount: inView.length, offset: opts.offset, maxChars: opts.max_chars, pageOrigin });
  const paginated = performance.now();
  const elementsTotal = items.filter((x) => x.kind === "element").length;

  /** @type {Snapshot & {stats: Record<string, unknown>}} */
  const snapshot = {
    url,
    title: oneLine(top.title, 200),
    viewport: vp,
    elements: page.elements.map(({ kind, ...rest }) => rest),
    text: page.text,
    next_offset: page.next_offset,
    page_overflow: page.page_overflow,
    stats: {
      ...stats,
      elements_total: elementsTotal,
      elements_in_viewport: inView.filter((x) => x.kind === "element").length,
      items_total: ordered.length,
      items_shown: page.shown,
      offset: opts.offset,
      chars: page.text.length,
      occluders: ordered.filter((x) => x.kind === "element" && x.states.occluding).map((x) => ({ ref: /** @type {ElementItem} */ (x).ref, covers: /** @type {ElementItem} */ (x).states.occluding })),
      ms: 0,
      // Where the time went: before asking (tab, load error), the frames' walks and their
      // messages, stitching with global refs, and the text.
      phases_ms: { start: ms(asked - t0), frames: ms(answered - asked), stitch: ms(stitched - answered), text: ms(paginated - stitched) },
    },
    tab_id: id,
    ref_generation: refGeneration(id),
    screenshot_b64: null,
    thumbnail_b64: null,
    dialogs: recentDialogs(id),
    downloads: await tabDownloads(id),
  };
  if (opts.screenshot) {
    const shot = await overlayScreenshot(tab, page.elements.filter((e) => e.in_viewport), vp.width, page.elements.filter((e) => e.states?.secret));
    snapshot.screenshot_b64 = shot.b64;
    snapshot.screenshot_scale = shot.scale;
    if (shot.error) snapshot.stats.screenshot_error = shot.error;
    snapshot.stats.screenshot_labelled = shot.labelled;
    if (opts.thumbnail && shot.b64) {
      // A step never fails because of its thumbnail: the error is reported in stats instead.
      try {
        snapshot.thumbnail_b64 = (await thumbnail(shot.b64)).b64;
      } catch (e) {
        snapshot.stats.thumbnail_error = errorMessage(e);
      }
    }
  }
  snapshot.stats.ms = ms(performance.now() - t0);
  return snapshot;
}

/** A duration rounded to a tenth of a millisecond. @param {number} value */
function ms(value) {
  return Math.round(value * 10) / 10;
}

/**
 * Where each frame of a tab is now: its offset (top-level position of its viewport origin)
 * and its visible region (clip), both top-level CSS pixels. Dispatch turns a frame-local
 * box into a click point with these and shared/coords.js.
 * @param {number} tabId
 * @returns {Promise<Map<number, {offset: Point, clip: Box}>>}
 */
export async function frameOffsets(tabId) {
  const answers = await askAllFrames(tabId, { kind: KIND.FRAMES });
  const children = childrenByParent(answers);
  /** @type {Map<number, {offset: Point, clip: Box}>} */
  const out = new Map();
  const top = answers.find((a) => a.frameId === 0);
  if (!top || !top.result) return out;
  /** @param {FrameAnswer} a @param {Point} offset @param {Box} clip */
  const visit = (a, offset, clip) => {
    out.set(a.frameId, { offset, clip });
    const kids = children.get(a.frameId) || [];
    for (const it of /** @type {FrameResult} */ (a.result).items) {
      if (it.t !== "f") continue;
      const child = kids.find((k) => k.result && k.result.frameIndex === it.index);
      if (!child || out.has(child.frameId)) continue;
      const box = toTopLevel(it.box, offset);
      visit(child, childFrameOffset(offset, it.box), intersect(clip, box) || [box[0], box[1], 0, 0]);
    }
  };
  visit(top, [0, 0], viewportBox(top.result.viewport.width, top.result.viewport.height));
  return out;
}

/**
 * Diagnostics for tests and benchmarks: run a content handler (wm:refinfo, wm:mark-refs)
 * for global refs, grouped by the frame that holds them.
 * @param {number} tabId @param {string} kind @param {{frameId: number, docId: string, localRef: number}[]} targets @param {Record<string, unknown>=} extra
 */
export async function perFrameRefs(tabId, kind, targets, extra = {}) {
  /** @type {Map<string, {frameId: number, docId: string, refs: number[]}>} */
  const groups = new Map();
  for (const t of targets) {
    const key = `${t.frameId}|${t.docId}`;
    const g = groups.get(key) || { frameId: t.frameId, docId: t.docId, refs: [] };
    g.refs.push(t.localRef);
    groups.set(key, g);
  }
  const out = [];
  for (const g of groups.values()) {
    try {
      out.push({ frameId: g.frameId, refs: g.refs, data: await sendToFrame(tabId, g.frameId, { kind, docId: g.docId, refs: g.refs, ...extra }) });
    } catch (e) {
      out.push({ frameId: g.frameId, refs: g.refs, data: null, error: errorCode(e) || String(e) });
    }
  }
  return out;
}

/**
 * Run a diagnostics content handler for global refs of a tab: refs this tab never issued or
 * whose document is gone come back as {ref, live: false}.
 * @param {number} tabId @param {string} kind @param {number[]} refs @param {Record<string, unknown>=} extra
 */
async function forRefs(tabId, kind, refs, extra = {}) {
  /** @type {{frameId: number, docId: string, localRef: number}[]} */
  const targets = [];
  /** @type {Map<string, number>} */
  const back = new Map();
  const dead = [];
  for (const ref of refs) {
    const t = resolveRef(tabId, ref);
    if (!t) {
      dead.push({ ref, live: false, issued: wasIssued(tabId, ref) });
      continue;
    }
    targets.push(t);
    back.set(`${t.frameId}|${t.localRef}`, ref);
  }
  const groups = await perFrameRefs(tabId, kind, targets, extra);
  for (const g of groups) {
    // A frame whose document changed answers stale_ref: every ref it held is dead.
    if (g.error) for (const l of g.refs) dead.push({ ref: back.get(`${g.frameId}|${l}`), live: false, issued: true });
  }
  return { groups: groups.filter((g) => !g.error).map((g) => ({ ...g, data: Array.isArray(g.data) ? g.data.map((d) => ({ ...d, ref: back.get(`${g.frameId}|${d.l}`) })) : g.data })), dead };
}

/** Tests, benchmarks and the side panel's diagnostics reach perception through this (globalThis.waymark.snapshot in the diagnostic build). */
export const snapshotDiagnostics = {
  /** @param {number|null} tabId @param {SnapshotOptions=} options */
  take: (tabId, options) => takeSnapshot(tabId, options),
  /** Live entries of the tab's global ref table. @param {number} tabId */
  refTableSize: (tabId) => tableSize(tabId),
  /** Which of these global refs still point at a live element, and at what. @param {number} tabId @param {number[]} refs */
  refInfo: async (tabId, refs) => {
    const { groups, dead } = await forRefs(tabId, KIND.REFINFO, refs);
    return dead.concat(groups.flatMap((g) => (Array.isArray(g.data) ? g.data : [])));
  },
  /** Where each global ref lives: its frame and the frame-local ref that markRefs writes. @param {number} tabId @param {number[]} refs */
  localRefs: (tabId, refs) => refs.map((ref) => {
    const t = resolveRef(tabId, ref);
    return t ? { ref, frameId: t.frameId, localRef: t.localRef } : { ref, frameId: null, localRef: null };
  }),
  /** Tag the elements of these global refs with `attribute` (benchmark recall). @param {number} tabId @param {number[]} refs @param {string} attribute */
  markRefs: async (tabId, refs, attribute) => {
    const { groups } = await forRefs(tabId, KIND.MARK_REFS, refs, { attribute });
    return groups.reduce((n, g) => n + (g.data?.marked || 0), 0);
  },
  /** @param {number} tabId */
  frameOffsets: async (tabId) => Object.fromEntries(await frameOffsets(tabId)),
};

/** @param {import("./native.js").NativeChannel} channel */
export function registerSnapshotHandler(channel) {
  channel.handle("snapshot", async (params) => {
    const options = /** @type {SnapshotOptions} */ (params);
    return takeSnapshot(options.tab_id ?? null, options);
  });
}
