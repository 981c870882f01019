// @ts-check
/**
 * Downloads the pages of Waymark's tabs start, as Chrome's own downloads API reports them: file
 * name, size, MIME type, state and the path the file landed at. `chrome.downloads` does not say
 * which tab started a download; the debugger session of the tab does (`Page.downloadWillBegin`,
 * with the download's URL), and the debugger is attached only to tabs Waymark acts in. So a
 * download is recorded for a tab only when that tab's session announced it: one the user starts
 * in another tab is never recorded (the host keeps only those of its run's tabs, see
 * host/core/downloads.py).
 *
 * The debugger leaves a tab after a quiet spell, and a page may start its download later (an
 * export that is "being prepared"): a download nobody announced is then claimed by the page that
 * started it, Chrome's `referrer`, when exactly one open tab shows that page and Waymark has acted
 * in it. The records live in `chrome.storage.session`, so a worker Chrome stopped and started again
 * still knows the downloads the previous one saw.
 */

/**
 * One download of a tab, as the host's Download model (host/core/snapshot.py) reads it.
 * @typedef {{id: number, tab_id: number, name: string, path: string, mime: string, size: number,
 *   state: "in_progress"|"complete"|"interrupted", error: string|null, url: string, started: number}} DownloadRecord
 */

/** How long an announcement or a created download waits for its other half, in ms. */
const PAIRING_MS = 30_000;
/** Downloads kept per tab (the oldest are forgotten). */
const KEPT_PER_TAB = 50;

/** How long a created download waits for its tab to announce it before its page claims it, in ms. */
const ANNOUNCE_GRACE_MS = 1500;
/** The key of the records (and the tabs Waymark acted in) in chrome.storage.session. */
const STORE_KEY = "downloads";

/** @type {Map<number, DownloadRecord>} download id -> its record, for downloads of Waymark's tabs */
const records = new Map();
/** @type {Set<number>} tabs the debugger has been attached to: only their pages may claim a download */
const actedIn = new Set();
/** @type {Array<{tabId: number, url: string, name: string, at: number}>} announced by a tab, not yet created */
const announced = [];
/** @type {Map<number, {item: chrome.downloads.DownloadItem, at: number}>} created, not yet announced */
const unclaimed = new Map();

/** The records and tabs an earlier worker kept, back in memory (merged: what this worker saw wins). */
const restored = chrome.storage.session.get(STORE_KEY).then((got) => {
  const kept = /** @type {{records?: DownloadRecord[], tabs?: number[]}|undefined} */ (got?.[STORE_KEY]);
  for (const r of kept?.records || []) if (!records.has(r.id)) records.set(r.id, r);
  for (const t of kept?.tabs || []) actedIn.add(t);
}).catch(() => undefined);

/** Keep the records where the next worker finds them. */
function persist() {
  void restored.then(() => chrome.storage.session.set({ [STORE_KEY]: { records: [...records.values()], tabs: [...actedIn] } })).catch(() => undefined);
}

/** A tab Waymark's debugger was attached to (sw/cdp.js): its page may claim a download later. @param {number} tabId */
export function actedInTab(tabId) {
  if (actedIn.has(tabId)) return;
  actedIn.add(tabId);
  persist();
}

/** A URL without its fragment, as a tab and a download's referrer are compared. @param {string} url */
function withoutFragment(url) {
  return url.split("#", 1)[0];
}

/** A URL as a record shows it: no query or fragment (tokens live there), data:/blob: as the scheme. @param {string} url */
function shownUrl(url) {
  try {
    const u = new URL(url);
    if (u.protocol === "data:" || u.protocol === "blob:") return u.protocol;
    return u.origin + u.pathname;
  } catch {
    return "";
  }
}

/** The last part of a path, on any platform. @param {string} path */
function baseName(path) {
  return path.split(/[\\/]/).pop() || "";
}

/** @param {string|undefined} state @returns {DownloadRecord["state"]} */
function stateOf(state) {
  return state === "complete" ? "complete" : state === "interrupted" ? "interrupted" : "in_progress";
}

/** @param {number} now */
function expire(now) {
  for (let i = announced.length - 1; i >= 0; i--) if (now - announced[i].at > PAIRING_MS) announced.splice(i, 1);
  for (const [id, u] of unclaimed) if (now - u.at > PAIRING_MS) unclaimed.delete(id);
}

/** @param {chrome.downloads.DownloadItem} item @param {number} tabId @param {string} suggested */
function remember(item, tabId, suggested) {
  records.set(item.id, {
    id: item.id, tab_id: tabId, name: baseName(item.filename || "") || suggested, path: item.filename || "", mime: item.mime || "",
    size: item.fileSize > 0 ? item.fileSize : item.bytesReceived || 0, state: stateOf(item.state), error: item.error || null,
    url: shownUrl(item.finalUrl || item.url), started: Date.parse(item.startTime) || Date.now(),
  });
  const mine = [...records.values()].filter((r) => r.tab_id === tabId);
  for (const old of mine.slice(0, Math.max(0, mine.length - KEPT_PER_TAB))) records.delete(old.id);
  persist();
  // The record's name, size and path come from Chrome once it has them: ask for the item as it is now.
  void refresh(item.id);
}

/** Read a recorded download afresh from Chrome (its path and size are set after it is created). @param {number} id */
async function refresh(id) {
  const [item] = await chrome.downloads.search({ id }).catch(() => []);
  const record = records.get(id);
  if (!item || !record) return;
  record.path = item.filename || record.path;
  record.name = baseName(item.filename || "") || record.name;
  record.mime = item.mime || record.mime;
  record.size = item.fileSize > 0 ? item.fileSize : item.bytesReceived || record.size;
  record.state = stateOf(item.state);
  record.error = item.error || null;
  persist();
}

/**
 * A download no tab announced (the debugger had left it): the one open tab showing the page that
 * started it (Chrome's referrer) claims it, if Waymark acted in that tab; two tabs on that page, or
 * a tab Waymark never acted in, claim nothing.
 * @param {number} id
 */
async function claimByPage(id) {
  const waiting = unclaimed.get(id);
  const referrer = withoutFragment(waiting?.item.referrer || "");
  if (!waiting || !referrer) return;
  await restored;
  const showing = (await chrome.tabs.query({}).catch(() => [])).filter((t) => t.id !== undefined && withoutFragment(t.url || "") === referrer);
  const tabId = showing.length === 1 ? showing[0].id : undefined;
  if (tabId === undefined || !actedIn.has(tabId) || !unclaimed.has(id)) return;
  unclaimed.delete(id);
  remember(waiting.item, tabId, "");
}

chrome.downloads.onCreated.addListener((item) => {
  const now = Date.now();
  expire(now);
  const i = announced.findIndex((a) => a.url === item.url || a.url === item.finalUrl);
  if (i < 0) {
    unclaimed.set(item.id, { item, at: now });
    setTimeout(() => void claimByPage(item.id), ANNOUNCE_GRACE_MS);
    return;
  }
  const [a] = announced.splice(i, 1);
  remember(item, a.tabId, a.name);
});

chrome.downloads.onChanged.addListener(async (delta) => {
  await restored;
  if (records.has(delta.id)) void refresh(delta.id);
  else if (unclaimed.has(delta.id) && delta.filename?.current) {
    const u = /** @type {{item: chrome.downloads.DownloadItem}} */ (unclaimed.get(delta.id));
    u.item = { ...u.item, filename: delta.filename.current };
  }
});

chrome.debugger.onEvent.addListener((source, method, params) => {
  if (method !== "Page.downloadWillBegin" || source.tabId === undefined) return;
  // Page.downloadWillBegin's parameters, as the protocol defines them.
  const p = /** @type {{url?: string, suggestedFilename?: string}} */ (params || {});
  const url = String(p.url || "");
  const now = Date.now();
  expire(now);
  const name = String(p.suggestedFilename || "");
  const waiting = [...unclaimed.values()].find((u) => u.item.url === url || u.item.finalUrl === url);
  if (waiting) {
    unclaimed.delete(waiting.item.id);
    remember(waiting.item, source.tabId, name);
    return;
  }
  announced.push({ tabId: source.tabId, url, name, at: now });
});

/**
 * The downloads a tab started, oldest first, as they are now.
 * @param {number} tabId @param {number=} since only those started at or after this time (ms since the epoch)
 * @returns {Promise<DownloadRecord[]>}
 */
export async function tabDownloads(tabId, since = 0) {
  await restored;
  // Asked now, a download still waiting for its announcement is claimed by its page at once.
  await Promise.all([...unclaimed.keys()].map(claimByPage));
  const mine = [...records.values()].filter((r) => r.tab_id === tabId && r.started >= since);
  await Promise.all(mine.filter((r) => r.state === "in_progress" || !r.path).map((r) => refresh(r.id)));
  return mine.map((r) => ({ ...r }));
}
