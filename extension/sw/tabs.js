// @ts-check
/** Host requests about tabs: list them, open one, activate one, close one. */
import { WaymarkError } from "./native.js";

/**
 * @param {chrome.tabs.Tab} tab
 */
export function describeTab(tab) {
  return { tab_id: tab.id ?? -1, url: tab.url || tab.pendingUrl || "", title: tab.title || "", active: Boolean(tab.active), window_id: tab.windowId, status: tab.status || "" };
}

/** @param {number} tabId */
export async function requireTab(tabId) {
  try {
    return await chrome.tabs.get(tabId);
  } catch {
    throw new WaymarkError("no_such_tab", `there is no tab ${tabId}`);
  }
}

/** @param {import("./native.js").NativeChannel} channel */
export function registerTabHandlers(channel) {
  channel.handle("tabs.list", async () => {
    const tabs = await chrome.tabs.query({});
    return { tabs: tabs.filter((t) => t.id !== undefined).map(describeTab) };
  });
  channel.handle("tabs.active", async () => {
    const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
    if (!tab) throw new WaymarkError("no_such_tab", "no active tab");
    return describeTab(tab);
  });
}

