// @ts-check
/**
 * An MCP client waiting for the user while the side panel is closed: the host tells the worker
 * how many questions wait (`mcp.waiting`), and the toolbar icon shows that number on a badge
 * with a title that says where to answer. Opening the panel shows the questions themselves.
 */

/** The toolbar title when nothing waits (the manifest's default_title). */
const IDLE_TITLE = "Open Waymark";

/** @param {import("./native.js").NativeChannel} channel */
export function registerMcpBadge(channel) {
  channel.handle("mcp.waiting", async (params) => {
    const count = typeof params.count === "number" && Number.isInteger(params.count) && params.count > 0 ? params.count : 0;
    await chrome.action.setBadgeText({ text: count ? String(count) : "" });
    if (count) await chrome.action.setBadgeBackgroundColor({ color: "#b3261e" });
    const client = typeof params.client === "string" ? params.client.slice(0, 100) : "An MCP client";
    await chrome.action.setTitle({ title: count ? `${client} is waiting for your answer: open Waymark to allow or deny` : IDLE_TITLE });
    return { shown: count };
  });
  // A host that went away takes its questions with it.
  channel.subscribe((state) => {
    if (state.status !== "connected") chrome.action.setBadgeText({ text: "" }).catch(() => {});
  });
}
