// @ts-check
/**
 * A typed secret goes only where it is bound, as a password manager fills a login only on its
 * site. The host sends the origins a secret may be typed on with the act request
 * (`secret_origins`); just before typing, this reads the target frame's origin from the browser
 * itself (chrome.webNavigation.getFrame: never what the page or the content script says) and
 * refuses with `secret_origin_refused` unless it is one of them. An admitted field is then marked
 * in its frame (content/secret_fields.js), so no snapshot or screenshot shows what goes into it.
 */
import { WaymarkError } from "./native.js";
import { KIND } from "../shared/actions.js";
import { sanitizeOrigin } from "./snapshot_text.js";

/**
 * The origin of a URL as the browser's own parser reads it, or null for an opaque one
 * (about:blank, data:, a sandboxed document), on which no secret is typed.
 * @param {string|undefined} url @returns {string|null}
 */
export function originOf(url) {
  try {
    const origin = new URL(url || "").origin;
    return origin && origin !== "null" ? origin : null;
  } catch {
    return null;
  }
}

/**
 * Admit typing a secret into a frame, or throw `secret_origin_refused`; the frame's origin when
 * admitted, null when the action types no secret (`origins` absent).
 * @param {number} tabId @param {number} frameId
 * @param {string[]|null|undefined} origins  the secret's origins, from the act request
 * @param {(message: {kind: string}) => Promise<unknown>} toField  sends the target field's frame a message
 * @returns {Promise<string|null>}
 */
export async function admitSecret(tabId, frameId, origins, toField) {
  if (!origins) return null;
  const frame = await chrome.webNavigation.getFrame({ tabId, frameId }).catch(() => null);
  const origin = originOf(frame?.url);
  const allowed = new Set(origins.map(originOf));
  if (!origin || !allowed.has(origin)) {
    // The sites it is bound to stay unsaid: the message reaches the model, which a page may be steering.
    const where = origin || sanitizeOrigin(frame?.url);
    throw new WaymarkError("secret_origin_refused", `the secret is not typed into a frame of ${where}: it is not bound to that site`);
  }
  await toField({ kind: KIND.ACT_MARK_SECRET });
  return origin;
}
