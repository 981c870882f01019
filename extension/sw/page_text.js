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

/** The largest PDF fetched for reading (browser->host messages may be 64 MiB; base64 grows it by a third). */
const PDF_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The bytes of the PDF the tab's viewer shows, base64, or null when the tab shows no PDF. Chrome's
 * viewer keeps its text out of reach of scripts, so the file is fetched again from inside the page
 * (its origin, its cookies: what the viewer loaded), and the host reads its text with a PDF library.
 * @param {number} tabId @returns {Promise<string|null>}
 */
export async function pdfBytes(tabId) {
  const [frame] = await chrome.scripting.executeScript({
    target: { tabId },
    args: [PDF_MAX_BYTES],
    func: async (/** @type {number} */ maxBytes) => {
      if (document.contentType !== "application/pdf") return null;
      const response = await fetch(location.href, { credentials: "include" });
      if (!response.ok) return { error: `the PDF could not be fetched again: HTTP ${response.status}` };
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.length > maxBytes) return { error: `the PDF is ${bytes.length} bytes, more than the ${maxBytes} read` };
      let binary = "";
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return { b64: btoa(binary) };
    },
  }).catch(() => [null]);
  const read = /** @type {{b64?: string, error?: string}|null|undefined} */ (frame?.result);
  if (!read) return null;
  if (read.error) throw new WaymarkError("pdf_unreadable", read.error);
  return read.b64 ?? null;
}
