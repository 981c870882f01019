// @ts-check
/**
 * Injecting the content scripts on demand into every frame of a tab (so tabs opened before
 * the extension loaded, and documents still loading, work too). The files guard themselves, so
 * injecting twice is harmless.
 */
import { errorMessage } from "../shared/errors.js";
import { WaymarkError } from "./native.js";

/** A message to a content script: its `kind` (shared/actions.js KIND) and the handler's fields. @typedef {Record<string, unknown>} FrameMessage */

/**
 * The isolated-world content files, in injection order (core.js first): the manifest declares
 * them for every frame of every page loaded from now on, so a snapshot seldom pays an injection;
 * they are injected here into documents that predate the extension or are still loading.
 */
const CONTENT_FILES = (chrome.runtime.getManifest().content_scripts || []).find((script) => !(/** @type {{world?: string}} */ (script)).world)?.js || [];

/** @param {string} url */
export function isRestrictedUrl(url) {
  return /^(chrome|chrome-extension|edge|about|devtools|view-source|chrome-search):/i.test(url) || /^https:\/\/chromewebstore\.google\.com\//i.test(url);
}

/**
 * Inject the content scripts into every frame of `tabId`.
 * @param {number} tabId
 */
export async function ensureInjected(tabId) {
  let tab;
  try {
    tab = await chrome.tabs.get(tabId);
  } catch {
    throw new WaymarkError("no_such_tab", `there is no tab ${tabId}`);
  }
  if (tab.url === "about:blank") throw new WaymarkError("restricted_page", "the tab is blank (about:blank): no page is open in it yet");
  if (tab.url && isRestrictedUrl(tab.url)) {
    throw new WaymarkError("restricted_page", `extensions cannot read ${new URL(tab.url).protocol} pages`);
  }
  try {
    // injectImmediately: without it the call waits for every frame to finish loading, and a
    // frame that never does (a stalled about:blank ad slot) would hang it for good.
    await chrome.scripting.executeScript({ target: { tabId, allFrames: true }, files: CONTENT_FILES, injectImmediately: true });
  } catch (e) {
    const message = errorMessage(e);
    if (/cannot be scripted|cannot access|extensions gallery/i.test(message)) throw new WaymarkError("restricted_page", message);
    throw new WaymarkError("injection_failed", message);
  }
}

/**
 * Send a message to the content script of one frame and unwrap its typed answer.
 * The answer's data is whatever the frame's handler of `message.kind` returns (content/*.js).
 * @param {number} tabId @param {number} frameId @param {FrameMessage} message
 * @returns {Promise<any>}
 */
export async function sendToFrame(tabId, frameId, message) {
  let answer;
  try {
    answer = await chrome.tabs.sendMessage(tabId, message, { frameId });
  } catch (e) {
    throw new WaymarkError("frame_unreachable", `frame ${frameId} of tab ${tabId} did not answer: ${errorMessage(e)}`);
  }
  if (!answer) throw new WaymarkError("frame_unreachable", `frame ${frameId} of tab ${tabId} gave no answer`);
  if (!answer.ok) throw new WaymarkError(answer.error?.code || "content_error", answer.error?.message || "content script failed", answer.data ?? undefined);
  return answer.data;
}
