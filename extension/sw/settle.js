// @ts-check
/**
 * Settle after an action: wait a minimum, follow any navigation the action started to its
 * commit and load (re-injecting the content scripts into the new document), notice tabs the
 * action opened, and wait for a DOM-mutation quiet window, all bounded by one deadline.
 *
 * A watcher is started *before* the action so no navigation or new tab is missed.
 */
import { ensureInjected, sendToFrame } from "./inject.js";
import { WaymarkError } from "./native.js";
import { KIND, NAVIGATION_COMMIT_MS } from "../shared/actions.js";

/**
 * The DOM counts as settled after this long without a mutation, a frame rendered, and nothing
 * the action started pending (requests, short timers, frame callbacks: content/activity.js);
 * the window is left for work that cannot be seen, such as a message-channel task.
 */
export const QUIET_MS = 10;
/** In a document whose pending work cannot be seen (loaded before the extension), wait at least this long. */
export const FALLBACK_MIN_MS = 50;

/**
 * @typedef {{intercepted: boolean, stale?: boolean, occluder_local_ref?: number|null, occluder?: string}} GuardVerdict
 * @typedef {{settle_ms: number, navigated: boolean, new_tab: {tab_id: number, url: string}|null, tab_id: number, quiet: boolean, sent: boolean, guard: {frameId: number, verdict: GuardVerdict}|null}} SettleResult
 *   guard: the verdict of a press guard a frame of the watched tab still held (dispatch.js)
 */


/**
 * Add `fn` to a Chrome event; returns what removes it.
 * @template {(...args: any) => void} F  the constraint Chrome's type declarations put on a listener
 * @param {chrome.events.Event<F>} event @param {F} fn @returns {() => void}
 */
function listen(event, fn) {
  event.addListener(fn);
  return () => event.removeListener(fn);
}

/** Watches one tab for navigations and for tabs it opens, from before an action until stop(). */
export class TabWatcher {
  /** @param {number} tabId */
  constructor(tabId) {
    this.tabId = tabId;
    /** Cross-document navigation of the top frame started / committed / parsed / finished, per tab. */
    /** @type {Map<number, {started: number, committed: boolean, parsed: boolean, completed: boolean, failed: boolean, sameDocument: boolean}>} */
    this.nav = new Map();
    /** @type {number|null} */
    this.newTabId = null;
    /** Wakes settle() when something it waits for happens. */
    this.wake = () => {};
    const mine = (/** @type {{tabId: number, frameId: number}} */ d) => d.frameId === 0 && (d.tabId === this.tabId || d.tabId === this.newTabId);
    const state = (/** @type {number} */ tabId) => {
      let s = this.nav.get(tabId);
      if (!s) {
        s = { started: 0, committed: false, parsed: false, completed: false, failed: false, sameDocument: false };
        this.nav.set(tabId, s);
      }
      return s;
    };
    /** What removes each listener added here, for stop(). */
    this.unlisten = [
      listen(chrome.webNavigation.onBeforeNavigate, (d) => {
        if (!mine(d)) return;
        Object.assign(state(d.tabId), { started: performance.now(), committed: false, parsed: false, completed: false, failed: false });
        this.wake();
      }),
      listen(chrome.webNavigation.onCommitted, (d) => {
        if (!mine(d)) return;
        const s = state(d.tabId);
        s.committed = true;
        if (!s.started) s.started = performance.now();
        this.wake();
      }),
      listen(chrome.webNavigation.onDOMContentLoaded, (d) => {
        if (!mine(d)) return;
        state(d.tabId).parsed = true;
        this.wake();
      }),
      listen(chrome.webNavigation.onCompleted, (d) => {
        if (!mine(d)) return;
        state(d.tabId).completed = true;
        this.wake();
      }),
      listen(chrome.webNavigation.onErrorOccurred, (d) => {
        if (!mine(d)) return;
        // A download or a cancelled navigation: the page stays where it was.
        state(d.tabId).failed = true;
        this.wake();
      }),
      listen(chrome.webNavigation.onHistoryStateUpdated, (d) => { if (mine(d)) { state(d.tabId).sameDocument = true; this.wake(); } }),
      listen(chrome.webNavigation.onReferenceFragmentUpdated, (d) => { if (mine(d)) { state(d.tabId).sameDocument = true; this.wake(); } }),
      listen(chrome.webNavigation.onCreatedNavigationTarget, (d) => {
        if (d.sourceTabId !== this.tabId || this.newTabId !== null) return;
        this.newTabId = d.tabId;
        this.wake();
      }),
      listen(chrome.tabs.onCreated, (/** @type {chrome.tabs.Tab} */ tab) => {
        if (tab.openerTabId !== this.tabId || tab.id === undefined || this.newTabId !== null) return;
        this.newTabId = tab.id;
        this.wake();
      }),
    ];
  }

  /** @returns {boolean} the watched tab's top document began to be replaced since the watch started */
  leaving() {
    const s = this.nav.get(this.tabId);
    return Boolean(s && s.started && !s.failed);
  }

  stop() {
    for (const undo of this.unlisten) undo();
    this.unlisten = [];
  }

  /** @param {number} tabId */
  navigation(tabId) {
    return this.nav.get(tabId) || null;
  }

  /** Sleep until `ms` passed or something happened. @param {number} ms */
  nap(ms) {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, Math.max(0, ms));
      this.wake = () => {
        clearTimeout(t);
        this.wake = () => {};
        resolve(undefined);
      };
    });
  }

  /**
   * Wait for the page to settle after the action.
   * @param {{startedAt: number, beganAt?: number, minMs: number, timeoutMs: number, commitMs?: number, frameIds?: number[], quietMs?: number}} opts
   *   startedAt: performance.now() when the action finished; beganAt: when its input began (work the
   *   page started from then on is waited for); frameIds: frames whose DOM must be quiet
   * @returns {Promise<SettleResult>}
   */
  async settle(opts) {
    const deadline = opts.startedAt + opts.timeoutMs;
    // A navigation gets longer to commit than the page gets to settle: a slow server's first
    // byte is not a failure, and until the commit there is no new page to settle.
    const commitMs = opts.commitMs ?? NAVIGATION_COMMIT_MS;
    const commitDeadline = opts.startedAt + commitMs;
    const quietMs = opts.quietMs ?? QUIET_MS;
    const minUntil = opts.startedAt + opts.minMs;
    let quiet = false;
    // Whether a frame of the page sent a request or a form since the action began (content/activity.js).
    let sent = false;
    /** @type {{frameId: number, verdict: GuardVerdict}|null} */
    let guard = null;
    let tabId = this.tabId;
    let injectedFor = -1;
    for (;;) {
      // The agent continues in a tab the action opened, as a person would.
      if (this.newTabId !== null) tabId = this.newTabId;
      const nav = this.navigation(tabId);
      let navigating = (nav && nav.started && !nav.failed && !nav.completed) || (tabId === this.newTabId && !(await tabComplete(tabId)));
      // Parsed, and all that still holds its load is out of sight (a hidden long-poll frame): the
      // document is usable now, as a start page is (agent_tabs.js); its DOM is settled below.
      if (navigating && nav?.committed && nav.parsed && tabId === this.tabId && !(await loadHeldInSight(tabId))) navigating = false;
      if (navigating) {
        const uncommitted = !nav?.committed && tabId === this.tabId;
        const until = uncommitted ? commitDeadline : deadline;
        if (performance.now() >= until) {
          if (uncommitted) throw new WaymarkError("navigation_timeout", `the navigation the action started did not commit within ${commitMs} ms`);
          break; // committed but still loading: the document is usable, stop waiting.
        }
        await this.nap(Math.min(50, until - performance.now()));
        continue;
      }
      if ((nav?.committed || tabId === this.newTabId) && injectedFor !== tabId) {
        // A new document has no content scripts yet: inject before asking it for quiet.
        injectedFor = tabId;
        await ensureInjected(tabId).catch(() => {});
      }
      const frames = tabId === this.tabId ? [...new Set([0, ...(opts.frameIds || [])])] : [0];
      const remaining = deadline - performance.now();
      if (remaining <= 0) break;
      const before = this.navigation(tabId)?.started || 0;
      // The minimum and the quiet window run together: settled = minimum passed and DOM quiet.
      const minMs = Math.max(0, minUntil - performance.now());
      // In a document the action navigated to, everything pending is the new page's own loading.
      // The moment goes as wall-clock time, the one clock the page shares with this worker: a
      // span measured here would lose however long the question waits for a busy page.
      const sinceEpochMs = Date.now() - (nav?.committed ? 0 : performance.now() - (opts.beganAt ?? opts.startedAt));
      const message = { kind: KIND.SETTLE_QUIET, quietMs, minMs, fallbackMinMs: FALLBACK_MIN_MS, maxMs: remaining, sinceEpochMs };
      const answers = await Promise.all(frames.map((frameId) => sendToFrame(tabId, frameId, message).catch(() => null)));
      sent = sent || answers.some((a) => Boolean(a?.sent));
      if (tabId === this.tabId) {
        answers.forEach((a, i) => { if (a?.guard) guard = { frameId: frames[i], verdict: a.guard }; });
      }
      const after = this.navigation(tabId);
      // A navigation that began during the quiet window: follow it too.
      if (after && after.started !== before && !after.failed) continue;
      if (this.newTabId !== null && tabId !== this.newTabId) continue;
      quiet = answers.every((a) => a && a.quiet);
      break;
    }
    const settleMs = performance.now() - opts.startedAt;
    let newTab = null;
    if (this.newTabId !== null) {
      const tab = await chrome.tabs.get(this.newTabId).catch(() => null);
      newTab = { tab_id: this.newTabId, url: tab?.url || tab?.pendingUrl || "" };
      tabId = this.newTabId;
    }
    const nav = this.navigation(this.tabId);
    return {
      settle_ms: Math.round(settleMs * 10) / 10,
      navigated: Boolean(nav && ((nav.committed && !nav.failed) || nav.sameDocument)),
      new_tab: newTab,
      tab_id: tabId,
      quiet,
      sent,
      guard,
    };
  }
}

/**
 * Whether the tab's parsed top document still waits, for its load, on something a person could
 * see: a frame not yet loaded or an image not yet complete (content/activity.js, which has seen
 * every frame's load since document_start). A document without that script (loaded before the
 * extension) or that cannot be asked counts as held: its load is waited for as before.
 * @param {number} tabId @returns {Promise<boolean>}
 */
export async function loadHeldInSight(tabId) {
  const [frame] = await chrome.scripting.executeScript({
    target: { tabId, frameIds: [0] }, world: "MAIN", injectImmediately: true,
    func: () => {
      const ask = (/** @type {string} */ name) => !document.dispatchEvent(new Event(name, { cancelable: true }));
      return document.readyState === "loading" || !ask("__waymark_activity_here") || ask("__waymark_load_held");
    },
  }).catch(() => []);
  return frame?.result !== false;
}

/** @param {number} tabId */
async function tabComplete(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  return !tab || tab.status === "complete";
}
