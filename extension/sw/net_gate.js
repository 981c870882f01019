// @ts-check
/**
 * The gate's domain lists enforced on the network in the run's tabs: `declarativeNetRequest`
 * session rules with a `tabIds` condition block every request (top document, frames and
 * subresources) to a disallowed host before it leaves, so that a link, a redirect, a form post or
 * an image beacon never reaches it. Each act request's gate sets its tabs' rules; a tab a gated
 * tab opens (a popup, a target=_blank link) inherits them; a closed tab's rules go, and the host
 * drops a run's at its end (`act.detach`).
 *
 * Known race: a new tab's first request (a popup's, or the admitted URL of new_tab / tabs.open)
 * can start before its rules are set; what that first response redirects to can then slip
 * through. The URL a request opens is admitted first (gate.js); a popup's page is judged again by
 * the host when the run continues there.
 */
import { canonicalDomain } from "./gate.js";

/** @typedef {import("../shared/actions.js").Gate} Gate */
/** @typedef {chrome.declarativeNetRequest.Rule} Rule */

/** Every kind of request a page can make, the top document included. */
const ALL_TYPES = /** @type {chrome.declarativeNetRequest.ResourceType[]} */ ([
  "main_frame", "sub_frame", "stylesheet", "script", "image", "font", "object", "xmlhttprequest", "ping",
  "csp_report", "media", "websocket", "webtransport", "webbundle", "other",
]);

/** @param {Array<string>|undefined} domains */
function domainsOf(domains) {
  return [...new Set((domains || []).map(canonicalDomain).filter((d) => d !== ""))];
}

/**
 * The conditions a gate gives one tab: its block list as blocked domains, an allow list as a
 * block of every other domain.
 * @param {Gate|null|undefined} gate @param {number} tabId
 * @returns {chrome.declarativeNetRequest.RuleCondition[]}
 */
function conditionsFor(gate, tabId) {
  const conditions = [];
  const blocked = domainsOf(gate?.block_domains);
  if (blocked.length) conditions.push({ tabIds: [tabId], requestDomains: blocked, resourceTypes: ALL_TYPES });
  if (gate?.allow_domains?.length) {
    // An allow list none of whose entries is a host name allows nothing: every domain is blocked.
    const allowed = domainsOf(gate.allow_domains);
    conditions.push({ tabIds: [tabId], resourceTypes: ALL_TYPES, ...(allowed.length ? { excludedRequestDomains: allowed } : {}) });
  }
  return conditions;
}

/** Rule updates one after another: each picks its ids from the rules the last one left. */
let queue = Promise.resolve();

/**
 * Replace the rules of `tabs` with `conditions(tab)` for each, as one update. Every rule of this
 * module names one tab, so a tab's rules are found by their condition (Chrome's tab ids are too
 * large to derive rule ids from).
 * @param {number[]} tabs @param {(tab: number, rules: Rule[]) => chrome.declarativeNetRequest.RuleCondition[]} conditions
 */
function replaceRules(tabs, conditions) {
  const run = queue.then(async () => {
    const all = await chrome.declarativeNetRequest.getSessionRules();
    const old = all.filter((r) => r.condition.tabIds?.length === 1 && tabs.includes(r.condition.tabIds[0]));
    let next = all.reduce((max, r) => Math.max(max, r.id), 0) + 1;
    /** @type {Rule[]} */
    const addRules = tabs.flatMap((t) => conditions(t, all).map((condition) => ({ id: next++, priority: 1, action: { type: "block" }, condition })));
    await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: old.map((r) => r.id), addRules });
  });
  queue = run.catch(() => {});
  return run;
}

/** What each tab's rules were last set from, so an unchanged gate costs no update. */
const applied = new Map();

/**
 * Set the network rules of the gate's tabs and the acting tab to the gate's lists (none when it has none).
 * @param {Gate|null|undefined} gate @param {number} actingTab
 */
export async function applyGate(gate, actingTab) {
  const tabs = [...new Set([actingTab, ...(gate?.tabs || [])])].filter((t) => Number.isInteger(t) && t >= 0);
  const key = JSON.stringify([gate?.allow_domains || [], gate?.block_domains || []]);
  const changed = tabs.filter((t) => applied.get(t) !== key);
  if (!changed.length) return;
  await replaceRules(changed, (t) => conditionsFor(gate, t));
  for (const t of changed) applied.set(t, key);
}

/**
 * Give `tabId` the rules of the tab that opened it (none when that tab has none).
 * @param {number} sourceTab @param {number} tabId
 */
async function inherit(sourceTab, tabId) {
  await replaceRules([tabId], (_t, all) => all
    .filter((r) => r.condition.tabIds?.length === 1 && r.condition.tabIds[0] === sourceTab)
    .map((r) => ({ ...r.condition, tabIds: [tabId] })));
  if (applied.has(sourceTab)) applied.set(tabId, applied.get(sourceTab));
}

/**
 * Drop the rules of these tabs (every tab's when none is named).
 * @param {Array<number>|undefined} tabs
 */
export async function releaseTabs(tabs) {
  const named = tabs || [...new Set((await chrome.declarativeNetRequest.getSessionRules()).flatMap((r) => r.condition.tabIds || []))];
  await replaceRules(named, () => []);
  for (const t of tabs || [...applied.keys()]) applied.delete(t);
}

/** Popups and new tabs of a gated tab inherit its rules; a closed tab's rules go. */
export function registerNetGate() {
  chrome.webNavigation.onCreatedNavigationTarget.addListener((details) => {
    void inherit(details.sourceTabId, details.tabId).catch(() => {});
  });
  chrome.tabs.onCreated.addListener((tab) => {
    if (tab.openerTabId !== undefined && tab.id !== undefined) void inherit(tab.openerTabId, tab.id).catch(() => {});
  });
  chrome.tabs.onRemoved.addListener((tabId) => {
    void releaseTabs([tabId]).catch(() => {});
  });
}
