// @ts-check
/**
 * Step thumbnails for the side panel's timeline: the host sends a step's overlay screenshot
 * (base64 JPEG) and gets back a small JPEG of it, scaled with OffscreenCanvas. The browser
 * already decodes and encodes JPEG, so the host needs no imaging library for this.
 */
import { WaymarkError } from "./native.js";
import { blobToBase64 } from "./overlay.js";

const DEFAULT_WIDTH = 320;
const MAX_WIDTH = 1280;
const QUALITY = 0.7;

/**
 * Scale a JPEG down to at most `maxWidth` pixels wide, keeping its aspect ratio (never up).
 * @param {string} b64  base64 of a JPEG (or any image format Chrome decodes)
 * @param {number} maxWidth
 * @returns {Promise<{b64: string, width: number, height: number}>}
 */
export async function thumbnail(b64, maxWidth) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(await (await fetch(`data:image/jpeg;base64,${b64}`)).blob());
  } catch (e) {
    throw new WaymarkError("bad_image", `the screenshot could not be decoded: ${String(/** @type {any} */ (e)?.message || e)}`);
  }
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

/**
 * Answer the host's `thumbnail` request: {b64, max_width?} -> {b64, width, height}.
 * @param {import("./native.js").NativeChannel} channel
 */
export function registerThumbnailHandler(channel) {
  channel.handle("thumbnail", async (params) => {
    if (typeof params.b64 !== "string" || !params.b64) throw new WaymarkError("bad_params", "thumbnail needs b64: a base64 image");
    const maxWidth = params.max_width ?? DEFAULT_WIDTH;
    if (!Number.isInteger(maxWidth) || maxWidth < 16 || maxWidth > MAX_WIDTH) {
      throw new WaymarkError("bad_params", `thumbnail max_width must be an integer from 16 to ${MAX_WIDTH}`);
    }
    return thumbnail(params.b64, maxWidth);
  });
}
