// @ts-check
/**
 * The one place the extension admits a URL it is about to load and a tab it is about to move to
 * for a host request (`act`, `tabs.open`), judged on the browser's own parse (WHATWG `URL`): what
 * the host read in Python may differ (`\`, `127.1`, trailing or full-width dots), this may not.
 * The request's gate (host/core/gate.py) lists the allowed and blocked domains, the folders local
 * files may come from and the run's own tabs.
 */
import { WaymarkError } from "./native.js";

/** @typedef {import("../shared/actions.js").Gate} Gate */

/** Schemes a request may load; `about:` only as about:blank, `file:` only inside a gate's folder. */
const WEB_SCHEMES = new Set(["http:", "https:"]);

/**
 * The host name as the browser resolves it: lower case, IDNA and IPv4 forms canonical, no trailing dot.
 * @param {string} hostname a `URL.hostname`
 */
export function canonicalHost(hostname) {
  return hostname.toLowerCase().replace(/\.$/, "");
}

/**
 * A domain rule of a gate on the browser's parse, so that a rule and a URL compare alike.
 * @param {string} domain
 * @returns {string} "" when the rule is not a host name
 */
export function canonicalDomain(domain) {
  try {
    return canonicalHost(new URL(`http://${domain.trim().replace(/^\*?\./, "")}/`).hostname);
  } catch {
    return "";
  }
}

/**
 * Whether `host` is one of `domains` or a subdomain of one.
 * @param {string} host @param {Array<string>|undefined} domains
 */
export function inDomains(host, domains) {
  return (domains || []).map(canonicalDomain).some((d) => d !== "" && (host === d || host.endsWith(`.${d}`)));
}

/**
 * Parse what the host sent: an absolute URL, or a bare host name (`example.com/x`) read as https.
 * @param {unknown} raw
 * @returns {URL}
 */
function parse(raw) {
  const text = String(raw);
  try {
    return new URL(text);
  } catch {
    // The host resolves relative URLs against the page (host/core/actions.py absolute_url); one that
    // arrives here unresolved is refused rather than guessed into a host name (`/a` -> https://a/).
    if (/^[/.?#]/.test(text)) throw new WaymarkError("bad_action", `${JSON.stringify(text.slice(0, 100))} is a relative URL; send an absolute one`);
    try {
      return new URL(`https://${text}`);
    } catch {
      throw new WaymarkError("bad_action", "that is not a URL");
    }
  }
}

/**
 * Whether the file URL's path, percent-decoded as the file system will see it, lies inside one
 * of the folders; a decoded path that climbs (`..`), or holds a NUL or a backslash, lies nowhere.
 * @param {URL} url @param {Array<string>|undefined} folders
 */
function insideFolders(url, folders) {
  let path;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return false;
  }
  if (url.hostname !== "" || /[\0\\]/.test(path) || /(^|\/)\.\.?(\/|$)/.test(path)) return false;
  return (folders || []).some((folder) => {
    const root = folder.replace(/\/+$/, "");
    return root !== "" && (path === root || path.startsWith(`${root}/`));
  });
}

/**
 * The URL a request may load, as the browser will load it (`href`), or a `url_refused` error
 * naming the scheme or host (never the path or query, which may carry data).
 * @param {Gate|null|undefined} gate @param {unknown} raw
 * @returns {string}
 */
export function admitUrl(gate, raw) {
  const url = parse(raw);
  if (url.protocol === "about:") {
    if (url.href === "about:blank") return url.href;
    throw new WaymarkError("url_refused", "only about:blank may be opened of the about: pages");
  }
  if (url.protocol === "file:") {
    if (!gate?.file_folders?.length) throw new WaymarkError("url_refused", "local files are off: the user's settings list no file folders");
    if (!insideFolders(url, gate.file_folders)) throw new WaymarkError("url_refused", "that local file is outside the folders the user allowed");
    return url.href;
  }
  if (!WEB_SCHEMES.has(url.protocol)) throw new WaymarkError("url_refused", `the agent does not open ${url.protocol} URLs`);
  const host = canonicalHost(url.hostname);
  if (inDomains(host, gate?.block_domains)) throw new WaymarkError("url_refused", `${host} is on the block list`);
  if (gate?.allow_domains?.length && !inDomains(host, gate.allow_domains)) throw new WaymarkError("url_refused", `${host} is not on the allow list`);
  return url.href;
}

/**
 * Refuse, as `tab_refused`, a switch to or close of a tab that is not one of the run's own.
 * @param {Gate|null|undefined} gate @param {number} tabId
 */
export function admitTab(gate, tabId) {
  if (!(gate?.tabs || []).includes(tabId)) {
    throw new WaymarkError("tab_refused", `tab ${tabId} is not one of this run's tabs (the one it started in and those it opened)`);
  }
}
