// @ts-check
/**
 * A small, safe Markdown renderer for model answers. It builds DOM nodes and only ever sets
 * text through text nodes: HTML in the input (from the model or from a page the model quotes)
 * is shown as the characters it is, never parsed. Links are kept only for http(s) and mailto; a
 * relative link ("/product/2", quoted from the page) is resolved against the page's address.
 *
 * Supported: paragraphs, line breaks, #-headings, fenced and indented code, block quotes,
 * - / * / + and 1. lists, horizontal rules, `code`, **bold**, *italic*, [links](url), bare URLs.
 */
import { h } from "./dom.js";

const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/**
 * @param {string} href
 * @param {string=} base  the address a relative link is relative to (the page the answer is about); "" for none
 * @returns {string|null} the URL if its scheme is safe to link to
 */
export function safeHref(href, base = "") {
  try {
    const url = new URL(href.trim(), SAFE_SCHEMES.has(safeProtocol(base)) ? base : undefined);
    return SAFE_SCHEMES.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** @param {string} url @returns {string} its scheme ("" when it is no URL) */
function safeProtocol(url) {
  try {
    return new URL(url).protocol;
  } catch {
    return "";
  }
}

/**
 * Render Markdown text to a fragment of DOM nodes.
 * @param {string} source
 * @param {string=} base  the page's address, for relative links
 * @returns {DocumentFragment}
 */
export function renderMarkdown(source, base = "") {
  const out = document.createDocumentFragment();
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  /** @type {string[]} */
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) out.appendChild(renderParagraph(paragraph, base));
    paragraph = [];
  };
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^\s{0,3}(```+|~~~+)\s*([\w+-]*)/.exec(line);
    if (fence) {
      flush();
      const close = fence[1];
      const body = [];
      i += 1;
      while (i < lines.length && !lines[i].trimStart().startsWith(close)) body.push(lines[i++]);
      i += 1; // the closing fence (or the end of an unterminated block while streaming)
      out.appendChild(h("pre", {}, h("code", { dataset: fence[2] ? { lang: fence[2] } : undefined, text: body.join("\n") })));
      continue;
    }
    if (!line.trim()) {
      flush();
      i += 1;
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      const level = Math.min(6, heading[1].length + 2); // h3..h6: the panel is small
      const tag = /** @type {"h3"|"h4"|"h5"|"h6"} */ (`h${level}`);
      out.appendChild(h(tag, {}, renderInline(heading[2], base)));
      i += 1;
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      out.appendChild(h("hr"));
      i += 1;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      flush();
      const quoted = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s{0,3}>\s?/, ""));
      const quote = h("blockquote");
      quote.appendChild(renderMarkdown(quoted.join("\n"), base));
      out.appendChild(quote);
      continue;
    }
    const item = /^(\s*)([-*+]|\d{1,9}[.)])\s+/.exec(line);
    if (item) {
      flush();
      const ordered = /\d/.test(item[2]);
      const list = ordered ? h("ol") : h("ul");
      if (ordered) {
        const start = parseInt(item[2], 10);
        if (start !== 1) list.setAttribute("start", String(start));
      }
      while (i < lines.length) {
        const m = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/.exec(lines[i]);
        if (!m || /\d/.test(m[2]) !== ordered) break;
        const body = [m[3]];
        i += 1;
        // Continuation lines are indented; a nested list stays inside its item.
        while (i < lines.length && lines[i].trim() && /^\s{2,}/.test(lines[i]) && !/^\s{0,1}([-*+]|\d{1,9}[.)])\s+/.test(lines[i])) {
          body.push(lines[i].replace(/^\s{2,4}/, ""));
          i += 1;
        }
        const li = h("li");
        if (body.length === 1) li.appendChild(renderInline(body[0], base));
        else li.appendChild(renderMarkdown(body.join("\n"), base));
        list.appendChild(li);
      }
      out.appendChild(list);
      continue;
    }
    if (/^( {4}|\t)/.test(line) && paragraph.length === 0) {
      const body = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || !lines[i].trim())) body.push(lines[i++].replace(/^( {4}|\t)/, ""));
      out.appendChild(h("pre", {}, h("code", { text: body.join("\n").replace(/\n+$/, "") })));
      continue;
    }
    paragraph.push(line);
    i += 1;
  }
  flush();
  return out;
}

/** @param {string[]} lines @param {string} base */
function renderParagraph(lines, base) {
  const p = h("p");
  lines.forEach((line, index) => {
    if (index > 0) p.appendChild(h("br"));
    p.appendChild(renderInline(line.trim(), base));
  });
  return p;
}

/**
 * Inline Markdown: code spans first (their content is literal), then links, bold, italic, URLs.
 * @param {string} text
 * @param {string=} base  the page's address, for relative links
 * @returns {DocumentFragment}
 */
export function renderInline(text, base = "") {
  const out = document.createDocumentFragment();
  const pattern = /(`+)([\s\S]*?[^`])\1(?!`)|\[([^\]\n]+)\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)|\*\*([^*\n]+?)\*\*|__([^_\n]+?)__|\*([^*\s][^*\n]*?)\*|(?<![\w])_([^_\s][^_\n]*?)_(?![\w])|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    const at = m.index ?? 0;
    if (at > last) out.appendChild(document.createTextNode(text.slice(last, at)));
    if (m[1] !== undefined) {
      out.appendChild(h("code", { text: m[2].trim() || m[2] }));
    } else if (m[3] !== undefined) {
      out.appendChild(link(m[4], renderInline(m[3], base), m[0], base));
    } else if (m[5] !== undefined || m[6] !== undefined) {
      out.appendChild(h("strong", {}, renderInline(m[5] ?? m[6], base)));
    } else if (m[7] !== undefined || m[8] !== undefined) {
      out.appendChild(h("em", {}, renderInline(m[7] ?? m[8], base)));
    } else if (m[9] !== undefined) {
      out.appendChild(link(m[9], document.createTextNode(m[9]), m[9], base));
    }
    last = at + m[0].length;
  }
  if (last < text.length) out.appendChild(document.createTextNode(text.slice(last)));
  return out;
}

/**
 * @param {string} href @param {Node} label @param {string} literal  shown as text when the URL is unsafe @param {string} base
 */
function link(href, label, literal, base) {
  const safe = safeHref(href, base);
  if (!safe) return document.createTextNode(literal);
  return h("a", { href: safe, target: "_blank", rel: "noopener noreferrer" }, label);
}
