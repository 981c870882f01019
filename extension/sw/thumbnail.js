// @ts-check
/**
 * Step thumbnails for the side panel's timeline: a small JPEG of the snapshot's overlay
 * screenshot, scaled here with OffscreenCanvas so the host receives it with the snapshot and
 * never sends a screenshot back to be shrunk.
 */
import { blobToBase64 } from "./overlay.js";

/** Width in pixels of a thumbnail (about 10-30 KB as JPEG). */
export const THUMBNAIL_WIDTH = 320;
const QUALITY = 0.7;

/**
 * Scale a JPEG down to at most `maxWidth` pixels wide, keeping its aspect ratio (never up).
 * @param {string} b64  base64 of a JPEG (or any image format Chrome decodes)
 * @param {number=} maxWidth
 * @returns {Promise<{b64: string, width: number, height: number}>}
 */
export async function thumbnail(b64, maxWidth = THUMBNAIL_WIDTH) {
  const bitmap = await createImageBitmap(await (await fetch(`data:image/jpeg;base64,${b64}`)).blob());
  const scale = Math.min(1, maxWidth / bitmap.width);
  const width = Math.max(1, Math.round(bitmap.width * scale));
  const height = Math.max(1, Math.round(bitmap.height * scale));
  const canvas = new OffscreenCanvas(width, height);
  const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext("2d"));
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  const blob = await canvas.convertToBlob({ type: "image/jpeg", quality: QUALITY });
  return { b64: await blobToBase64(blob), width, height };
}
