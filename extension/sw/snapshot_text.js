// @ts-check
/**
 * The snapshot as the model reads it: sanitising of page-controlled strings (names, URLs)
 * and the compact text, one line per element (`[ref] role "name" key=value ...`), viewport
 * first, paginated by `max_chars` / `offset`. Links, most of any page, are written without
 * their role word (`[ref] "name"`), an element without a name without its empty quotes, and a
 * heading that only repeats the name of the element beside it is left out.
 *
 * Page content is data: every string that came from the page is collapsed to one line,
 * quoted with escapes and capped, so no page can forge a line of its own (`[12] button`).
 */

/** @typedef {{kind: "element", ref: number, order: number, role: string, name: string, value: string|null, states: Record<string, unknown>, bbox: number[], frame: number, doc: string, in_viewport: boolean, href?: string|null, options?: string[], field?: string, placeholder?: string, form?: number}} ElementItem */
/** @typedef {{kind: "heading", level: number, text: string, in_viewport: boolean}} HeadingItem */
/** A live region's text (an <output>, role status or alert): context, like a heading. @typedef {{kind: "live", role: string, text: string, in_viewport: boolean}} LiveItem */
/** @typedef {{kind: "frame", origin: string, in_viewport: boolean, frame: number|null}} FrameItem */
/** @typedef {ElementItem|HeadingItem|LiveItem|FrameItem} Item */

/** Query keys whose values are credentials or one-time secrets (OAuth code/state, tokens...). */
const SECRET_KEY = /(token|code|state|secret|pass|pwd|auth|session|sid|key|sig|nonce|credential|ticket|otp|saml|jwt|hash)/i;
/** Long opaque values (random ids, tokens) are dropped whatever their key. */
const OPAQUE_VALUE = /^(?=.*\d)(?=.*[a-zA-Z])[A-Za-z0-9\-_.~%+/=]{24,}$/;

/**
 * One line of page text: whitespace collapsed (newlines, line separators), control
 * characters removed, capped.
 * @param {string|null|undefined} s @param {number} cap
 */
export function oneLine(s, cap) {
  if (!s) return "";
  // Bidi controls (incl. the Arabic letter mark) and invisible format characters (word joiner,
  // invisible operators, interlinear annotations) go too: they hide or reorder what a model reads.
  // eslint-disable-next-line no-control-regex
  const t = String(s).replace(/[\u0000-\u001f\u007f-\u009f\u061c\u180e\u2028\u2029\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufff9-\ufffb\s]+/g, " ").trim();
  return t.length > cap ? `${t.slice(0, cap - 1)}…` : t;
}

/**
 * A page string as a quoted token: one line, backslashes and quotes escaped.
 * @param {string|null|undefined} s @param {number=} cap
 */
export function quote(s, cap = 100) {
  return `"${oneLine(s, cap).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/**
 * A URL safe to show a model or write to a trace: no credentials, no secret-looking query
 * parameters or fragments; `data:`, `blob:`, `javascript:` and unknown schemes collapse to
 * the scheme name.
 * @param {string|null|undefined} raw
 * @returns {string}
 */
export function sanitizeUrl(raw) {
  if (!raw) return "";
  // A page lists the same links snapshot after snapshot: each is parsed once.
  let safe = sanitized.get(raw);
  if (safe === undefined) {
    if (sanitized.size >= SANITIZED_CAP) sanitized.clear();
    safe = sanitizeOnce(raw);
    sanitized.set(raw, safe);
  }
  return safe;
}

/** URLs sanitised lately, at most this many (a page of several thousand links fits). */
const SANITIZED_CAP = 20000;
/** @type {Map<string, string>} */
const sanitized = new Map();

/** @param {string} raw */
function sanitizeOnce(raw) {
  let u;
  try {
    u = new URL(raw);
  } catch {
    return "invalid-url";
  }
  const scheme = u.protocol;
  if (scheme === "about:") return oneLine(`about:${u.pathname}`, 40);
  if (scheme === "mailto:" || scheme === "tel:") return oneLine(`${scheme}${u.pathname}`, 120);
  if (scheme !== "http:" && scheme !== "https:" && scheme !== "file:" && scheme !== "ftp:") return scheme;
  u.username = "";
  u.password = "";
  const kept = new URLSearchParams();
  for (const [k, v] of u.searchParams) {
    if (SECRET_KEY.test(k) || OPAQUE_VALUE.test(v)) continue;
    kept.append(k, v);
  }
  const search = kept.toString();
  const hash = u.hash && !/[=&]/.test(u.hash) && !OPAQUE_VALUE.test(u.hash.slice(1)) ? u.hash : "";
  const path = u.pathname.split("/").map((segment) => (isPathToken(segment) ? "[redacted]" : segment)).join("/");
  return oneLine(`${u.origin}${path}${search ? `?${search}` : ""}${hash}`, 300);
}

const JWT = /^[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}$/;
const HEX = /^[0-9a-fA-F]{32,}$/;
const TOKEN_CHARS = /^[A-Za-z0-9\-_.~%+=]{16,}$/;

/**
 * Whether a URL path segment is a credential (a reset or magic link's token, a JWT, a long random
 * id): JWT-shaped, 32+ hex digits, or 16+ token characters whose letters and digits alternate in
 * 6 or more runs once separators are dropped (a word slug alternates in fewer). The host's
 * redact_url (host/agent/redaction.py) keeps the same rule.
 * @param {string} segment
 */
export function isPathToken(segment) {
  if (JWT.test(segment) || HEX.test(segment)) return true;
  if (!TOKEN_CHARS.test(segment)) return false;
  return (segment.replace(/[^A-Za-z0-9]/g, "").match(/[A-Za-z]+|[0-9]+/g) || []).length >= 6;
}

/**
 * Only the origin of a URL (for the marker of a frame that cannot be read).
 * @param {string|null|undefined} raw
 */
export function sanitizeOrigin(raw) {
  if (!raw) return "unknown";
  let u;
  try {
    u = new URL(raw);
  } catch {
    return "invalid-url";
  }
  if (u.protocol === "about:") return oneLine(`about:${u.pathname}`, 40);
  if (u.origin && u.origin !== "null") return u.origin;
  return u.protocol;
}

/** @param {string} href @param {string} pageOrigin */
function shortHref(href, pageOrigin) {
  return href.startsWith(`${pageOrigin}/`) ? href.slice(pageOrigin.length) : href;
}

/** @param {unknown} v */
function stateValue(v) {
  if (typeof v === "boolean" || typeof v === "number") return String(v);
  const s = oneLine(String(v), 40);
  return /^[\w.-]+$/.test(s) ? s : quote(s, 40);
}

/**
 * The model line of one item.
 * @param {Item} item @param {string} pageOrigin
 */
export function renderItem(item, pageOrigin) {
  if (item.kind === "heading") return `${"#".repeat(Math.min(6, Math.max(1, item.level)))} ${oneLine(item.text, 100)}`;
  if (item.kind === "live") return `${item.role} ${quote(item.text)}`;
  if (item.kind === "frame") return `frame ${quote(item.origin, 80)} unreadable`;
  let line = `[${item.ref}]`;
  if (item.role !== "link") line += ` ${item.role}`;
  if (item.name) line += ` ${quote(item.name)}`;
  if (item.value !== null && item.value !== undefined && item.value !== "") line += ` value=${quote(item.value)}`;
  for (const [k, v] of Object.entries(item.states)) line += ` ${k}=${stateValue(v)}`;
  if (item.options && item.options.length) line += ` options=${quote(item.options.join("|"), 200)}`;
  if (item.href && !item.name) line += ` href=${quote(shortHref(item.href, pageOrigin), 100)}`;
  // A field's own keys, never passed off as its accessible name.
  if (item.field) line += ` field=${quote(item.field, 60)}`;
  if (item.placeholder) line += ` placeholder=${quote(item.placeholder)}`;
  return line;
}

/** @param {Item|undefined} item */
function nameOfElement(item) {
  return item && item.kind === "element" ? oneLine(item.name, 100) : null;
}

/**
 * The items without headings that say only what the element next to them is called (a story's
 * title heading around its link): the model reads that name on the element's own line.
 * @param {Item[]} items
 * @returns {Item[]}
 */
export function withoutEchoedHeadings(items) {
  return items.filter((item, i) => {
    if (item.kind !== "heading") return true;
    const text = oneLine(item.text, 100);
    return text !== nameOfElement(items[i + 1]) && text !== nameOfElement(items[i - 1]);
  });
}

/**
 * @typedef {Object} Page
 * @property {string} text
 * @property {ElementItem[]} elements  the elements printed on this page
 * @property {number|null} next_offset
 * @property {boolean} page_overflow
 * @property {number} shown  items on this page
 */

/**
 * One page of the model text: header, items from `offset` while they fit in `maxChars`
 * (headings and live regions only within a 15% budget), a separator before the first item outside the
 * viewport, and a footer with what was left out and how to get it.
 * @param {{header: string[], items: Item[], viewportCount: number, offset: number, maxChars: number, pageOrigin: string}} args
 * @returns {Page}
 */
export function paginate({ header, items, viewportCount, offset, maxChars, pageOrigin }) {
  const headerText = header.join("\n");
  const FOOTER_RESERVE = 110;
  const budget = maxChars - headerText.length - 1 - FOOTER_RESERVE;
  const contextBudget = Math.floor(maxChars * 0.15);
  /** @type {string[]} */
  const lines = [];
  /** @type {ElementItem[]} */
  const elements = [];
  let used = 0;
  let contextUsed = 0;
  let i = Math.min(offset, items.length);
  let firstLineLength = 0;
  for (; i < items.length; i++) {
    const item = items[i];
    let line = renderItem(item, pageOrigin);
    if (item.kind === "heading" || item.kind === "live") {
      if (contextUsed + line.length + 1 > contextBudget) continue; // context is optional: skip, keep paging
      contextUsed += line.length + 1;
    }
    if (i === viewportCount && viewportCount < items.length) {
      line = `-- outside the viewport: ${items.length - viewportCount} items --\n${line}`;
    } else if (i === offset && offset > viewportCount) {
      line = `-- outside the viewport, continued from offset ${offset} --\n${line}`;
    }
    if (used + line.length + 1 > budget) {
      if (!firstLineLength) firstLineLength = line.length;
      break;
    }
    lines.push(line);
    used += line.length + 1;
    if (item.kind === "element") elements.push(item);
  }
  const shown = i - Math.min(offset, items.length);
  if (shown === 0 && i < items.length) {
    const need = headerText.length + firstLineLength + FOOTER_RESERVE + 2;
    return {
      text: `${headerText}\npage_overflow: the item at offset ${offset} needs ${firstLineLength} characters but max_chars=${maxChars} leaves ${Math.max(0, budget)}; call snapshot again with max_chars >= ${need}`,
      elements: [],
      next_offset: null,
      page_overflow: true,
      shown: 0,
    };
  }
  const next = i < items.length ? i : null;
  if (next !== null) {
    const left = items.slice(next);
    const leftElements = left.filter((x) => x.kind === "element").length;
    lines.push(`-- ${left.length} more items (${leftElements} elements) not shown: call snapshot with offset=${next} --`);
  } else if (offset > 0 || items.length === 0) {
    lines.push(items.length === 0 ? "-- no interactive elements --" : "-- end of page --");
  }
  return { text: `${headerText}\n${lines.join("\n")}`, elements, next_offset: next, page_overflow: false, shown };
}
