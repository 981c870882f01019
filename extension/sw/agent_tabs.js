// @ts-check
/** Host requests for the agent's own tab: open a tab on its start URL and wait until it loaded. */
import { WaymarkError } from "./native.js";
import { describeTab } from "./tabs.js";
import { admitUrl } from "./gate.js";
import { applyGate } from "./net_gate.js";

const LOAD_TIMEOUT_MS = 30000;

/**
 * Resolve once the tab's status is "complete" (or the timeout passed: a slow page is still usable).
 * @param {number} tabId
 * @param {number} timeoutMs
 * @returns {Promise<chrome.tabs.Tab>}
 */
function loaded(tabId, timeoutMs) {
  return new Promise((resolve, reject) => {
    /** @type {ReturnType<typeof setTimeout>} */
    let timer;
    /** @param {number} id @param {chrome.tabs.OnUpdatedInfo} info @param {chrome.tabs.Tab} tab */
    const onUpdated = (id, info, tab) => {
      if (id === tabId && info.status === "complete") done(tab);
    };
    /** @param {number} id */
    const onRemoved = (id) => {
      if (id !== tabId) return;
      cleanup();
      reject(new WaymarkError("no_such_tab", `tab ${tabId} was closed while loading`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(onUpdated);
      chrome.tabs.onRemoved.removeListener(onRemoved);
    };
    /** @param {chrome.tabs.Tab} tab */
    const done = (tab) => {
      cleanup();
      resolve(tab);
    };
    timer = setTimeout(() => chrome.tabs.get(tabId).then(done, () => onRemoved(tabId)), timeoutMs);
    chrome.tabs.onUpdated.addListener(onUpdated);
    chrome.tabs.onRemoved.addListener(onRemoved);
    // It may have finished before the listeners were added.
    chrome.tabs.get(tabId).then((tab) => { if (tab.status === "complete" && tab.url && tab.url !== "about:blank") done(tab); }, () => {});
  });
}

/** @param {import("./native.js").NativeChannel} channel */
export function registerAgentTabHandlers(channel) {
  channel.handle("tabs.open", async (params) => {
    if (typeof params.url !== "string") throw new WaymarkError("bad_params", "tabs.open needs a URL");
    const gate = /** @type {import("../shared/actions.js").Gate|undefined} */ (params.gate);
    const url = admitUrl(gate, params.url);
    const tab = await chrome.tabs.create({ url, active: params.active !== false });
    if (tab.id === undefined) throw new WaymarkError("no_such_tab", "the new tab has no id");
    // The URL itself was admitted above; the rules catch what it redirects to or loads.
    await applyGate(gate, tab.id);
    if (tab.windowId !== undefined) await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
    return describeTab(await loaded(tab.id, typeof params.timeout_ms === "number" ? params.timeout_ms : LOAD_TIMEOUT_MS));
  });
  channel.handle("tabs.close", async (params) => {
    if (typeof params.tab_id !== "number") throw new WaymarkError("bad_params", "tabs.close needs a tab_id");
    await chrome.tabs.remove(params.tab_id).catch(() => {});
    return { closed: params.tab_id };
  });
}
