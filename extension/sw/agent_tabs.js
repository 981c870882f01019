// @ts-check
/** Host requests for the agent's own tab: open a tab on its start URL and wait until its content is usable. */
import { WaymarkError } from "./native.js";
import { describeTab } from "./tabs.js";
import { admitUrl } from "./gate.js";
import { applyGate } from "./net_gate.js";
import { loadHeldInSight } from "./settle.js";

const LOAD_TIMEOUT_MS = 30000;
/**
 * How long a page whose DOM is parsed may still take to load (its frames, its images) before it
 * is acted on as it is: the settle bound of an action (ActRequest.settle_timeout_ms's default), so
 * a start page is waited for as a page a run navigates to is.
 */
const LOAD_AFTER_PARSED_MS = 3000;

/** How often a parsed document is asked whether only what nobody sees still holds its load. */
const HELD_POLL_MS = 50;

/**
 * Resolve once the tab's document is usable: loaded (the tab complete), or its DOM parsed
 * (DOMContentLoaded of the top frame) and either nothing a person could see holds its load any
 * more (sw/settle.js loadHeldInSight) or LOAD_AFTER_PARSED_MS gone by without the load. A page
 * that holds a request open (a long poll, a stream in a hidden frame) never loads, and its content
 * is there to act on long before; a page whose frames are still loading gets the time to show them.
 * After `timeoutMs` a document still being parsed (a stream that never ends) is returned as it is.
 * @param {number} tabId
 * @param {number} timeoutMs
 * @returns {Promise<chrome.tabs.Tab>}
 */
function loaded(tabId, timeoutMs) {
  return new Promise((resolve, reject) => {
    /** @type {ReturnType<typeof setTimeout>} */
    let timer;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    let grace;
    const ready = () => chrome.tabs.get(tabId).then(done, () => onRemoved(tabId));
    /** @type {ReturnType<typeof setInterval>|undefined} */
    let asking;
    let settled = false;
    const parsed = () => {
      if (grace !== undefined) return;
      grace = setTimeout(() => void ready(), LOAD_AFTER_PARSED_MS);
      asking = setInterval(() => void loadHeldInSight(tabId).then((held) => { if (!held && !settled) void ready(); }), HELD_POLL_MS);
    };
    /** @param {number} id @param {chrome.tabs.OnUpdatedInfo} info @param {chrome.tabs.Tab} tab */
    const onUpdated = (id, info, tab) => {
      if (id === tabId && info.status === "complete") done(tab);
    };
    /** @param {chrome.webNavigation.WebNavigationFramedCallbackDetails} details */
    const onParsed = (details) => {
      if (details.tabId === tabId && details.frameId === 0) parsed();
    };
    /** @param {number} id */
    const onRemoved = (id) => {
      if (id !== tabId) return;
      cleanup();
      reject(new WaymarkError("no_such_tab", `tab ${tabId} was closed while loading`));
    };
    const cleanup = () => {
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      clearInterval(asking);
      chrome.tabs.onUpdated.removeListener(onUpdated);
      chrome.webNavigation.onDOMContentLoaded.removeListener(onParsed);
      chrome.tabs.onRemoved.removeListener(onRemoved);
    };
    /** @param {chrome.tabs.Tab} tab */
    const done = (tab) => {
      cleanup();
      resolve(tab);
    };
    timer = setTimeout(() => void ready(), timeoutMs);
    chrome.tabs.onUpdated.addListener(onUpdated);
    chrome.webNavigation.onDOMContentLoaded.addListener(onParsed);
    chrome.tabs.onRemoved.addListener(onRemoved);
    // It may have got there before the listeners were added.
    chrome.tabs.get(tabId).then((tab) => { if (tab.status === "complete" && tab.url && tab.url !== "about:blank") done(tab); }, () => {});
    parsedAlready(tabId).then((yes) => { if (yes) parsed(); }, () => {});
  });
}

/**
 * Whether the tab's top document, the one navigated to (not the blank one a new tab starts
 * with), has finished parsing.
 * @param {number} tabId @returns {Promise<boolean>}
 */
async function parsedAlready(tabId) {
  const [frame] = await chrome.scripting.executeScript({ target: { tabId }, func: () => [location.href, document.readyState] });
  const [href, state] = /** @type {[string, string]} */ (frame?.result || ["", "loading"]);
  return href !== "about:blank" && state !== "loading";
}

/**
 * Put a tab in a collapsed group of this title, so a background run's tab is set apart from the
 * user's own; a browser without tab groups leaves it ungrouped.
 * @param {number} tabId @param {string} title
 */
async function intoGroup(tabId, title) {
  try {
    const groupId = await chrome.tabs.group({ tabIds: [tabId] });
    await chrome.tabGroups.update(groupId, { title, collapsed: true });
  } catch (e) {
    console.warn("waymark: could not group the background tab", e);
  }
}

/** @param {import("./native.js").NativeChannel} channel */
export function registerAgentTabHandlers(channel) {
  channel.handle("tabs.open", async (params) => {
    if (typeof params.url !== "string") throw new WaymarkError("bad_params", "tabs.open needs a URL");
    const gate = /** @type {import("../shared/actions.js").Gate|undefined} */ (params.gate);
    const url = admitUrl(gate, params.url);
    const active = params.active !== false;
    const tab = await chrome.tabs.create({ url, active });
    if (tab.id === undefined) throw new WaymarkError("no_such_tab", "the new tab has no id");
    // The URL itself was admitted above; the rules catch what it redirects to or loads.
    await applyGate(gate, tab.id);
    if (typeof params.group === "string") await intoGroup(tab.id, params.group);
    // A background run (a scheduled one) must not pull the user's window to the front.
    if (active && tab.windowId !== undefined) await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
    return describeTab(await loaded(tab.id, typeof params.timeout_ms === "number" ? params.timeout_ms : LOAD_TIMEOUT_MS));
  });
  // Tabs a background run left in its group when its host went away mid-run (the worker stopped).
  channel.handle("tabs.close_group", async (params) => {
    if (typeof params.title !== "string" || !params.title) throw new WaymarkError("bad_params", "tabs.close_group needs a group title");
    /** @type {number[]} */
    const closed = [];
    for (const group of await chrome.tabGroups.query({ title: params.title })) {
      for (const tab of await chrome.tabs.query({ groupId: group.id })) if (tab.id !== undefined) closed.push(tab.id);
    }
    if (closed.length) await chrome.tabs.remove(closed).catch(() => {});
    return { closed };
  });
  channel.handle("tabs.close", async (params) => {
    if (typeof params.tab_id !== "number") throw new WaymarkError("bad_params", "tabs.close needs a tab_id");
    await chrome.tabs.remove(params.tab_id).catch(() => {});
    return { closed: params.tab_id };
  });
}
