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

/**
 * Load `url` in the tab and resolve once its top document committed (or failed, or `timeoutMs`
 * passed): what a snapshot of the tab then reads is that document, not the one before.
 * @param {number} tabId @param {string} url @param {number} timeoutMs
 * @returns {Promise<void>}
 */
export function navigateTab(tabId, url, timeoutMs) {
  return new Promise((resolve, reject) => {
    /** @param {{tabId: number, frameId: number, url: string}} details */
    const onEvent = (details) => {
      // A tab just created blank may commit that blank page after this began: not the load asked for.
      if (details.tabId === tabId && details.frameId === 0 && details.url !== "about:blank") finish();
    };
    const stop = () => {
      clearTimeout(timer);
      chrome.webNavigation.onCommitted.removeListener(onEvent);
      chrome.webNavigation.onErrorOccurred.removeListener(onEvent);
    };
    const finish = () => {
      stop();
      resolve();
    };
    const timer = setTimeout(finish, timeoutMs);
    chrome.webNavigation.onCommitted.addListener(onEvent);
    chrome.webNavigation.onErrorOccurred.addListener(onEvent);
    chrome.tabs.update(tabId, { url }).catch((e) => {
      stop();
      reject(e);
    });
  });
}
