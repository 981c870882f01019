// @ts-check
/**
 * The numbered-overlay screenshot: captureVisibleTab, then a label with each in-viewport
 * element's ref drawn at its box with OffscreenCanvas, as JPEG. Labels are scaled by
 * `bitmap.width / innerWidth` (never devicePixelRatio: under automation the capture size and
 * the DPR disagree) and clamped to the image. The box of every field a secret was typed into is
 * painted over first, so no screenshot carries a typed secret. If labelling fails the raw capture
 * is returned, unless it shows such a field: then no screenshot at all. The snapshot never fails
 * because of its screenshot.
 */
import { clampBox, scaleBox } from "../shared/coords.js";
import { errorMessage } from "../shared/errors.js";
/** @typedef {import("../shared/coords.js").Box} Box */

/** Label colours: a saturated fill no ordinary page uses much, so labels stand out (and tests can find them). */
export const LABEL_FILL = "#ff00c8";
export const LABEL_TEXT = "#ffffff";
/** What a typed secret's box is painted with: opaque, and no colour a label uses. */
export const SECRET_FILL = "#202020";
/** CSS pixels painted beyond a secret field's box on each side (caret, focus ring, a box read a frame early). */
const SECRET_PAD = 4;
const JPEG_QUALITY = 0.8;
/** Chrome allows an extension two captureVisibleTab calls a second; a faster one fails outright. */
const CAPTURE_GAP_MS = 510;
let lastCaptureAt = -Infinity;
/** Per tab, the scale of its latest screenshot (screenshot pixels per CSS pixel): the model's coordinates are in those pixels. */
/** @type {Map<number, number>} */
const scales = new Map();
chrome.tabs?.onRemoved.addListener((tabId) => scales.delete(tabId));
/** @type {Promise<unknown>} */
let captureQueue = Promise.resolve();

/**
 * captureVisibleTab, one call at a time and spaced to stay inside Chrome's quota, so that an
 * agent taking quick steps still gets every step's screenshot.
 * @param {number} windowId @param {chrome.extensionTypes.ImageDetails} options
 * @returns {Promise<string>}
 */
function pacedCapture(windowId, options) {
  const run = captureQueue.then(async () => {
    const wait = lastCaptureAt + CAPTURE_GAP_MS - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      return await chrome.tabs.captureVisibleTab(windowId, options);
    } finally {
      lastCaptureAt = performance.now();
    }
  });
  captureQueue = run.catch(() => undefined);
  return run;
}

/**
 * @param {Blob} blob
 * @returns {Promise<string>} base64 of the blob's bytes
 */
export async function blobToBase64(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/**
 * Capture the visible part of `tab` and draw numbered labels.
 * @param {chrome.tabs.Tab} tab  must be the active tab of its window (captureVisibleTab's rule); it is activated if not
 * @param {{ref: number, bbox: number[]}[]} elements  in-viewport elements, top-level CSS pixels
 * @param {number} innerWidth  the top document's innerWidth (CSS pixels)
 * @param {{bbox: number[]}[]=} secrets  the fields a secret was typed into (painted over), top-level CSS pixels
 * @returns {Promise<{b64: string|null, labelled: boolean, error: string|null, scale: number|null}>}
 */
export async function overlayScreenshot(tab, elements, innerWidth, secrets = []) {
  let dataUrl;
  try {
    if (!tab.active && tab.id !== undefined) await chrome.tabs.update(tab.id, { active: true });
    dataUrl = await pacedCapture(tab.windowId, { format: "jpeg", quality: Math.round(JPEG_QUALITY * 100) });
  } catch (e) {
    return { b64: null, labelled: false, error: `capture failed: ${errorMessage(e)}`, scale: null };
  }
  const raw = dataUrl.slice(dataUrl.indexOf(",") + 1);
  try {
    const bitmap = await createImageBitmap(await (await fetch(dataUrl)).blob());
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext("2d"));
    ctx.drawImage(bitmap, 0, 0);
    const scale = bitmap.width / Math.max(1, innerWidth);
    if (tab.id !== undefined) scales.set(tab.id, scale);
    ctx.fillStyle = SECRET_FILL;
    for (const field of secrets) {
      const [x, y, w, h] = /** @type {Box} */ (field.bbox);
      ctx.fillRect(...scaleBox([x - SECRET_PAD, y - SECRET_PAD, w + 2 * SECRET_PAD, h + 2 * SECRET_PAD], scale));
    }
    const fontPx = Math.max(10, Math.round(12 * scale));
    ctx.font = `bold ${fontPx}px sans-serif`;
    ctx.textBaseline = "top";
    for (const el of elements) {
      const [x, y, w, h] = scaleBox(/** @type {Box} */ (el.bbox), scale);
      ctx.strokeStyle = LABEL_FILL;
      ctx.lineWidth = Math.max(1, Math.round(scale));
      ctx.strokeRect(x, y, w, h);
      const text = String(el.ref);
      const pad = Math.round(2 * scale);
      const lw = Math.ceil(ctx.measureText(text).width) + 2 * pad;
      const lh = fontPx + 2 * pad;
      // Inside the element's top-left corner, moved back into the image where it would leave it.
      const [lx, ly] = clampBox(x + 1, y + 1, lw, lh, bitmap.width, bitmap.height);
      ctx.fillStyle = LABEL_FILL;
      ctx.fillRect(lx, ly, lw, lh);
      ctx.fillStyle = LABEL_TEXT;
      ctx.fillText(text, lx + pad, ly + pad);
    }
    bitmap.close();
    const blob = await canvas.convertToBlob({ type: "image/jpeg", quality: JPEG_QUALITY });
    return { b64: await blobToBase64(blob), labelled: true, error: null, scale };
  } catch (e) {
    return { b64: secrets.length ? null : raw, labelled: false, error: `labelling failed: ${errorMessage(e)}`, scale: null };
  }
}

/**
 * The scale of the screenshot the model was shown of this tab (screenshot pixels per CSS pixel):
 * the latest one's, else measured now with a capture of its own.
 * @param {chrome.tabs.Tab} tab @param {() => Promise<number>} innerWidth  the top document's, asked only to measure
 * @returns {Promise<number>}
 */
export async function screenshotScale(tab, innerWidth) {
  const known = tab.id !== undefined ? scales.get(tab.id) : undefined;
  if (known) return known;
  if (!tab.active && tab.id !== undefined) await chrome.tabs.update(tab.id, { active: true });
  const bitmap = await createImageBitmap(await (await fetch(await pacedCapture(tab.windowId, { format: "jpeg", quality: 30 }))).blob());
  const scale = bitmap.width / Math.max(1, await innerWidth());
  bitmap.close();
  if (tab.id !== undefined) scales.set(tab.id, scale);
  return scale;
}
