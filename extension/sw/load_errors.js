// @ts-check
/**
 * Pages that failed to load. Chrome shows its own error page (chrome-error://chromewebdata/),
 * which no extension may read; a snapshot of it is instead one line saying what failed (the
 * net::ERR_... code and the URL), so the agent can go back or go elsewhere instead of stranding.
 */
import { oneLine, sanitizeUrl } from "./snapshot_text.js";

/** The last main-frame load error of each tab. @type {Map<number, {error: string, url: string}>} */
const lastError = new Map();

/** Listen for main-frame load errors; called once at service-worker start. */
export function registerLoadErrors() {
  chrome.webNavigation.onErrorOccurred.addListener((d) => {
    // ERR_ABORTED is a navigation replaced by another one, not a page that failed.
    if (d.frameId === 0 && !/ERR_ABORTED/.test(d.error)) lastError.set(d.tabId, { error: d.error, url: d.url });
  });
  chrome.tabs.onRemoved.addListener((tabId) => lastError.delete(tabId));
}

/**
 * What failed, when the tab's main frame shows Chrome's error page; null otherwise.
 * @param {chrome.tabs.Tab} tab
 * @returns {Promise<{error: string, url: string}|null>}
 */
export async function loadError(tab) {
  const id = /** @type {number} */ (tab.id);
  const frame = await chrome.webNavigation.getFrame({ tabId: id, frameId: 0 }).catch(() => null);
  if (!frame || !(frame.errorOccurred || /^chrome-error:/.test(frame.url))) return null;
  const known = lastError.get(id);
  return { error: known?.error || "net::ERR_FAILED", url: known?.url || tab.url || tab.pendingUrl || "" };
}

/**
 * The snapshot of an error page (host/core/snapshot.py Snapshot): no elements, one line of text.
 * @param {chrome.tabs.Tab} tab @param {{error: string, url: string}} failure
 * @returns {import("../shared/actions.js").Snapshot}
 */
export function errorPageSnapshot(tab, failure) {
  const url = sanitizeUrl(failure.url);
  const code = oneLine(failure.error, 80);
  const line = `page failed to load: ${code} at ${oneLine(url, 150)} (go back, or navigate to another URL)`;
  return {
    url,
    title: "",
    viewport: { width: tab.width || 0, height: tab.height || 0, scroll_x: 0, scroll_y: 0, page_width: 0, page_height: 0, dpr: 1 },
    elements: [],
    text: line,
    next_offset: null,
    page_overflow: false,
    stats: { load_error: { code, url }, elements_total: 0, chars: line.length, ms: 0 },
    tab_id: tab.id,
    screenshot_b64: null,
  };
}
