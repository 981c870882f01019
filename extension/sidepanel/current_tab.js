// @ts-check
/**
 * Which browser tab the panel is about. In the side panel that is the active tab of the
 * panel's window, followed as the user switches tabs; a panel opened with `?tab=ID` (as the
 * tests and a detached panel do) stays pinned to that tab.
 */

export class CurrentTab {
  constructor() {
    const pinned = new URLSearchParams(location.search).get("tab");
    /** @type {number|null} */
    this.pinned = pinned && /^\d+$/.test(pinned) ? Number(pinned) : null;
    /** @type {number|null} */
    this.tabId = this.pinned;
    /** @type {Set<(tabId: number|null) => void>} */
    this.listeners = new Set();
  }

  /** Find the tab and follow activation changes in the panel's window. */
  async start() {
    if (this.pinned !== null) return;
    const win = await chrome.windows.getCurrent();
    const [tab] = await chrome.tabs.query({ active: true, windowId: win.id });
    this.set(tab?.id ?? null);
    chrome.tabs.onActivated.addListener((info) => {
      if (info.windowId === win.id) this.set(info.tabId);
    });
  }

  /** @param {number|null} tabId */
  set(tabId) {
    if (tabId === this.tabId) return;
    this.tabId = tabId;
    for (const listener of this.listeners) listener(tabId);
  }

  /** @param {(tabId: number|null) => void} listener */
  onChange(listener) {
    this.listeners.add(listener);
  }
}
