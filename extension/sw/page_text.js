// @ts-check
/**
 * The readable text of a whole tab, for `extract` without a ref and the host's `text_present`
 * checks: the top document's main content, then the text of every frame the content scripts
 * can read (same- and cross-origin, nested), each parent before its children and children in
 * their iframes' document order, each labelled by its frame's origin, within one character
 * budget. A message shown only inside a payment iframe ("Coupon applied") is read like any
 * other. Frames with no size (trackers, ad slots) are skipped.
 */
import { WaymarkError } from "./native.js";
import { askAllFrames, childrenByParent } from "./snapshot.js";
import { sanitizeOrigin } from "./snapshot_text.js";
import { KIND } from "../shared/actions.js";

/** @typedef {import("./snapshot.js").FrameAnswer} FrameAnswer */
/**
 * One frame's answer to `wm:act:extract` (content/actions.js).
 * @typedef {{text: string, truncated: boolean, total_chars: number, frameIndex: number, visible: boolean}} FrameText
 */

/** @param {FrameAnswer} answer @returns {FrameText} the frame's text (askAllFrames types its results as walks) */
function extractOf(answer) {
  return /** @type {FrameText} */ (/** @type {unknown} */ (answer.result));
}

/**
 * @param {number} tabId @param {number} maxChars
 * @param {boolean=} whole the top document's whole body, not only its main content (what checks read: a toast is outside it)
 * @returns {Promise<{text: string, truncated: boolean, frames: number}>}
 */
export async function pageText(tabId, maxChars, whole = false) {
  const answers = await askAllFrames(tabId, { kind: KIND.ACT_EXTRACT, max_chars: maxChars, whole });
  const top = answers.find((a) => a.frameId === 0);
  if (!top || !top.result) throw new WaymarkError("frame_unreachable", `the page of tab ${tabId} did not answer: ${top?.error || "no top frame"}`);
  const children = childrenByParent(answers);
  /** @type {string[]} */
  const parts = [];
  let truncated = false;
  let frames = 0;
  // Depth first with an explicit stack: frames nest, and a page decides how deep.
  /** @type {FrameAnswer[]} */
  const stack = [top];
  while (stack.length) {
    const answer = /** @type {FrameAnswer} */ (stack.pop());
    const read = extractOf(answer);
    if (read && read.text && (answer.frameId === 0 || read.visible)) {
      parts.push(answer.frameId === 0 ? read.text : `[frame ${sanitizeOrigin(answer.url)}]\n${read.text}`);
      truncated ||= Boolean(read.truncated);
      frames++;
    }
    const kids = (children.get(answer.frameId) || []).filter((k) => k.result);
    kids.sort((a, b) => extractOf(a).frameIndex - extractOf(b).frameIndex);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  let text = parts.join("\n\n");
  if (text.length > maxChars) {
    text = text.slice(0, maxChars);
    truncated = true;
  }
  return { text, truncated, frames };
}
