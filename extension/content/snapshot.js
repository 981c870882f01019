// @ts-check
/**
 * The perception walker of one frame (classic content script, injected after core.js).
 *
 * `wm:snapshot` walks this frame's document (open and closed shadow roots included) and
 * answers with the frame's items in document order: interactive elements, headings and live
 * regions' texts as context, and placeholders for child iframes (the service worker stitches each child
 * frame's own answer in at that place). Boxes are in this frame's viewport; the service
 * worker moves them to top-level coordinates (shared/coords.js). Sanitising for the model
 * (hrefs, quoting) happens in the service worker; here texts are only collapsed and capped
 * so messages stay small. Password and other secret values never leave this frame.
 */
/** @typedef {import("../sw/snapshot.js").WalkItem} WalkItem */
/** @typedef {import("../sw/snapshot.js").WalkElement} WalkElement */
/** An element that may have labels (input, select, textarea, button, ...). @typedef {Element & {labels?: NodeListOf<HTMLLabelElement>|null}} Labelable */
(() => {
  const g = /** @type {import("../shared/content_types.js").ContentGlobal} */ (globalThis);
  // content/core.js runs first in every frame; the check below still guards a frame without it.
  const core = /** @type {import("../shared/content_types.js").ContentCore} */ (g.__waymark);
  const KIND = /** @type {typeof import("../shared/actions.js").KIND} */ (g.__waymarkKinds);
  if (!core || core.snapshotReady) return;
  core.snapshotReady = true;

  /** Widget roles (ARIA) a person can operate. */
  const WIDGET_ROLES = new Set([
    "button", "checkbox", "combobox", "gridcell", "link", "listbox", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "radio", "scrollbar", "searchbox", "slider", "spinbutton", "switch",
    "tab", "textbox", "treeitem",
  ]);
  /** Range roles a person reads but does not operate: listed for their value (an upload's progress). */
  const READOUT_ROLES = new Set(["progressbar", "meter"]);
  /** Subtrees that never render anything a person could use. */
  const SKIP = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title", "base"]);
  const INPUT_ROLES = /** @type {Record<string, string>} */ ({
    button: "button", submit: "button", reset: "button", image: "button", file: "button",
    checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton", search: "searchbox",
  });
  /** autocomplete tokens whose values are secrets: never read them. */
  const SECRET_AUTOCOMPLETE = /(current-password|new-password|one-time-code|cc-number|cc-csc)/i;
  const NAME_CAP = 100;
  /** The elements of a name whose ::before/::after content is read. */
  const PSEUDO_BUDGET = 200;
  const VALUE_CAP = 100;
  const HEADING_CAP = 100;
  const OPTIONS_CAP = 12;

  /** @type {((el: Element) => ShadowRoot|null)|null} */
  const openOrClosed = typeof chrome !== "undefined" && chrome.dom && typeof chrome.dom.openOrClosedShadowRoot === "function"
    ? (el) => chrome.dom.openOrClosedShadowRoot(/** @type {HTMLElement} */ (el)) || null
    : null;

  /** Zero-width characters render as nothing: they join what is around them, never part it. */
  const ZERO_WIDTH = /[\u200b\ufeff]/g;
  const WHITESPACE = /[\s\u0085]+/g;

  /** @param {string|null|undefined} s @param {number} cap */
  function clean(s, cap) {
    if (!s) return "";
    const t = s.replace(ZERO_WIDTH, "").replace(WHITESPACE, " ").trim();
    return t.length > cap ? `${t.slice(0, cap - 1)}…` : t;
  }

  const ASCII_SPACES = /[ \t\n\r\f]+/g;
  const ASCII_EDGES = /^ | $/g;

  /**
   * An author's aria-label as accname says it: only ASCII whitespace is collapsed and trimmed
   * (infra's definition, as Chrome does), so a no-break space the author wrote stays in the name.
   * @param {string|null|undefined} s @param {number} cap
   */
  function cleanLabel(s, cap) {
    if (!s) return "";
    const t = s.replace(ZERO_WIDTH, "").replace(ASCII_SPACES, " ").replace(ASCII_EDGES, "");
    return t.length > cap ? `${t.slice(0, cap - 1)}…` : t;
  }

  /** The elements attachShadow accepts (custom elements aside): only these can host a closed root. */
  const SHADOW_HOSTS = new Set(["article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "main", "nav", "p", "section", "span"]);

  /**
   * The shadow root of an element, open or closed, if any. A root read here is watched for
   * changes like the document (content/name_cache.js): names read inside it are cached.
   * @param {Element} el
   */
  function shadowOf(el) {
    const root = openOrClosedRoot(el);
    if (root) core.names?.watch(root);
    return root;
  }

  /** @param {Element} el */
  function openOrClosedRoot(el) {
    const open = el.shadowRoot;
    if (open) return open;
    if (!openOrClosed || !(el instanceof HTMLElement)) return null;
    const tag = el.localName;
    if (!SHADOW_HOSTS.has(tag) && !tag.includes("-")) return null;
    try {
      return openOrClosed(el);
    } catch {
      return null; // the API refuses some elements (e.g. ones being torn down): no readable root
    }
  }

  /**
   * Whether the name being computed read something outside the element's own subtree (an
   * aria-labelledby target, a sprite's symbol): such a name is not cached, since changes there
   * are not watched as changes of the element.
   */
  let readOutside = false;

  /**
   * CSS generated content (`::before`/`::after`) that is text, as Chrome adds it to names.
   * @param {Element} el @param {string} which
   */
  function generated(el, which) {
    const content = getComputedStyle(el, which).content;
    if (!content || content === "none" || content === "normal") return "";
    return contentText(content);
  }

  /** The tokens of a computed `content` value: quoted strings (escapes kept), a `/`, or anything else. */
  const CONTENT_TOKENS = /"((?:[^"\\]|\\.)*)"|(\/)|[^\s"/]+/g;

  /** A CSS hex escape's character: U+FFFD for zero or past the last code point, as CSS Syntax says. @param {number} n */
  function codePoint(n) {
    return n === 0 || n > 0x10ffff ? "\ufffd" : String.fromCodePoint(n);
  }

  /**
   * The text a computed `content` value adds to a name: its alternative text when it has one
   * (`content: "\f007" / ""`, as Font Awesome 7 writes its icons: Chrome reads the alternative,
   * an empty one included), else its strings. Counters, images and the like add nothing.
   * @param {string} content
   */
  function contentText(content) {
    let text = "";
    /** @type {string|null} */
    let alt = null;
    for (const [, str, slash] of content.matchAll(CONTENT_TOKENS)) {
      if (slash) alt = "";
      else if (str !== undefined) {
        const unescaped = str.replace(/\\([0-9a-fA-F]{1,6}) ?|\\(.)/g, (_m, hex, ch) => (hex ? codePoint(parseInt(hex, 16)) : ch));
        if (alt === null) text += unescaped;
        else alt += unescaped;
      }
    }
    return alt ?? text;
  }

  /**
   * The titles of the symbols an icon draws with `<use href="#id">`: Chrome reads the used
   * copy, so a sprite's `<symbol><title>search</title>` names an icon-only link "search".
   * @param {Element} svg
   */
  function usedTitles(svg) {
    readOutside = true;
    const root = /** @type {Document|ShadowRoot} */ (svg.getRootNode());
    const titles = [];
    for (const use of svg.querySelectorAll("use")) {
      const href = use.getAttribute("href") || use.getAttribute("xlink:href") || "";
      const symbol = href.startsWith("#") && root.getElementById ? root.getElementById(href.slice(1)) : null;
      const title = symbol && Array.from(symbol.children).find((c) => c.localName === "title");
      if (title) titles.push(title.textContent);
    }
    return titles.join(" ");
  }

  /**
   * Text as rendered under its element's CSS text-transform (Chrome's names say "GIFT
   * RESOURCES" when a stylesheet upper-cases "Gift Resources").
   * @param {string} text @param {Element} parent
   */
  function transformed(text, parent) {
    const transform = getComputedStyle(parent).textTransform;
    if (transform === "uppercase") return text.toUpperCase();
    if (transform === "lowercase") return text.toLowerCase();
    if (transform === "capitalize") return text.replace(/(^|[\s\-–—(/"])(\p{L})/gu, (_m, before, letter) => before + letter.toUpperCase());
    return text;
  }

  /** ARIA range widgets: inside a name they say their value, not their label (accname 2C). */
  const RANGE_ROLES = new Set(["slider", "spinbutton", "scrollbar", "progressbar", "meter"]);

  /**
   * What an embedded control adds to the name of the element around it (a textbox its text, a
   * select its chosen option, a slider its value), or null for an element that is not a control.
   * @param {Element} el @param {string} tag
   * @returns {string|null}
   */
  function embeddedValue(el, tag) {
    const role = firstRole(el);
    if (role && RANGE_ROLES.has(role)) return el.getAttribute("aria-valuetext") ?? el.getAttribute("aria-valuenow") ?? "";
    if (tag === "select") return Array.from(/** @type {HTMLSelectElement} */ (el).selectedOptions, (o) => o.label || o.text).join(" ");
    if (core.typedSecret?.(el)) return "";
    if (tag === "textarea") return /** @type {HTMLTextAreaElement} */ (el).value;
    if (tag !== "input") return null;
    const input = /** @type {HTMLInputElement} */ (el);
    if (input.type === "checkbox" || input.type === "radio" || input.type === "file" || input.type === "hidden") return "";
    return input.type === "password" ? "" : input.value;
  }

  /** The first token of an element's explicit role, lower-cased, or "". @param {Element} el */
  function firstRole(el) {
    const role = el.getAttribute("role");
    return role ? role.trim().split(/\s+/)[0].toLowerCase() : "";
  }

  /**
   * Containers whose content never enters the name of an element around them (Chrome's roles
   * without name from content: figures, landmarks, groups, images, tables of data, tab lists...):
   * inside a name they say only their own name. Implicit roles by tag, explicit ones by role.
   */
  const NAME_ONLY_TAGS = new Set(["figure", "nav", "aside", "article", "main", "header", "footer", "dialog", "fieldset", "blockquote", "progress", "meter", "search", "video", "audio"]);
  const NAME_ONLY_ROLES = new Set([
    "alert", "alertdialog", "application", "article", "banner", "blockquote", "complementary", "contentinfo", "dialog",
    "document", "feed", "figure", "form", "graphics-document", "graphics-object", "graphics-symbol", "grid", "group", "img",
    "image", "listbox", "log", "main", "marquee", "menu", "menubar", "navigation", "note", "radiogroup", "search", "status",
    "table", "tablist", "tabpanel", "term", "timer", "toolbar", "tree", "treegrid",
  ]);

  /**
   * The name a name-only container gives the name around it: aria-labelledby, its caption
   * (figcaption, legend), its title.
   * @param {Element} el @param {string} tag
   */
  function ownName(el, tag) {
    const caption = tag === "figure" ? "figcaption" : tag === "fieldset" ? "legend" : "";
    const captionEl = caption ? Array.from(el.children).find((c) => c.localName === caption) : null;
    return labelledBy(el) || (captionEl ? textOf(captionEl, NAME_CAP, { naming: true }) : "") || el.getAttribute("title") || "";
  }

  /** The spaces HTML collapses (a no-break space is text). */
  const HTML_SPACE = /[ \t\n\r\f]/;
  const HTML_SPACES_ONLY = /^[ \t\n\r\f]*$/;

  /** Elements drawn as one box whatever their display (replaced and form controls). */
  const REPLACED = new Set(["img", "svg", "video", "audio", "canvas", "iframe", "object", "embed", "input", "button", "select", "textarea"]);
  /** Roles read as cells: apart from their neighbours with or without a space. */
  const CELL_ROLES = new Set(["cell", "gridcell", "columnheader", "rowheader"]);

  /** Elements with no box of their own that lay out inline (Chrome's LayoutInline). @param {Element} el */
  function laysOutInline(el) {
    if (REPLACED.has(el.localName)) return false;
    const style = getComputedStyle(el);
    return style.display === "inline" && style.float === "none" && style.position !== "absolute" && style.position !== "fixed";
  }

  /**
   * The node before (or after) `node` in document order, skipping its own subtree: its sibling,
   * else its parent's. Null when that would leave an element laid out as a box: what is outside
   * the box is apart from it anyway.
   * @param {Node} node @param {boolean} after
   * @returns {Node|null}
   */
  function adjacentNode(node, after) {
    for (let n = /** @type {Node|null} */ (node); n; n = n.parentNode) {
      const sibling = after ? n.nextSibling : n.previousSibling;
      if (sibling) return sibling;
      const parent = n.parentNode;
      if (!parent || parent.nodeType !== 1 || !laysOutInline(/** @type {Element} */ (parent))) return null;
    }
    return null;
  }

  /**
   * Whether a space beside `node` separates nothing (Chrome's CanIgnoreSpaceNextTo): it is
   * absent or unrendered, a block or replaced box, a line break, or text already spaced there.
   * An image keeps its space; an inline element is judged by its first (or last) child.
   * @param {Node|null} node @param {boolean} after @param {number} depth
   * @returns {boolean}
   */
  function spaceNeedless(node, after, depth) {
    if (!node) return true;
    if (depth > 3) return false;
    if (node.nodeType === 3) {
      const data = /** @type {Text} */ (node).data;
      return HTML_SPACES_ONLY.test(data) || HTML_SPACE.test(after ? data[0] : data[data.length - 1]);
    }
    if (node.nodeType !== 1) return true; // comments and the like have no box
    const el = /** @type {Element} */ (node);
    const tag = el.localName;
    if (tag === "br") return !after || !el.hasAttribute("role");
    if (tag === "img" || (tag === "input" && /** @type {HTMLInputElement} */ (el).type === "image")) return false;
    if (SKIP.has(tag) || !laysOutInline(el)) return true;
    if (CELL_ROLES.has(firstRole(el))) return true;
    const child = after ? el.firstChild : el.lastChild;
    if (child) return spaceNeedless(child, after, depth + 1);
    const beyond = adjacentNode(el, after); // an empty inline element: judged by what follows it
    return Boolean(beyond) && spaceNeedless(beyond, after, depth + 1);
  }

  /**
   * Whether Chrome leaves a whitespace-only text node out of names (its CanIgnoreSpace): a space
   * at the edge of a box, or beside something that is apart without it (a block, an SVG icon,
   * a comment, a positioned label), reads as nothing: "Abrir sidebar menu" + icon + "Menu" is
   * "Abrir sidebar menuMenu" to Chrome.
   * @param {Text} text
   */
  function spaceDropped(text) {
    const parent = text.parentElement;
    if (parent && /^(pre|break-spaces)/.test(getComputedStyle(parent).whiteSpace)) return false;
    const before = adjacentNode(text, false);
    const after = adjacentNode(text, true);
    return !before || !after || spaceNeedless(before, false, 0) || spaceNeedless(after, true, 0);
  }

  /**
   * Text of a subtree as a person reads it, bounded by `cap`: text, image alts, descendants'
   * aria-labels, CSS generated content. When the text names an element (`naming`), embedded
   * controls add their value and `exclude` (the control a label names) adds nothing. Hidden and
   * aria-hidden parts are skipped unless `hidden` (the text of a hidden node that
   * aria-labelledby points at still counts, as in Chrome).
   * @param {Node} node @param {number} cap @param {{naming?: boolean, exclude?: Element|null, hidden?: boolean}=} opts
   */
  function textOf(node, cap, opts = {}) {
    let out = "";
    // The titles of sprite symbols bare icons draw: the name only when the text is empty.
    let drawn = "";
    // Generated content costs a style resolution per element, slow on a deep subtree (a button
    // under 5,000 wrappers); Chrome itself stops reading a name after 100 descendants.
    let pseudoBudget = PSEUDO_BUDGET;
    /**
     * Whitespace runs collapse as they come, so `cap` bounds the text a person reads and not a
     * page's source indentation.
     * @param {string} s
     */
    const add = (s) => {
      const t = s.replace(ZERO_WIDTH, "").replace(WHITESPACE, " ");
      out += (out === "" || out.endsWith(" ")) && t.startsWith(" ") ? t.slice(1) : t;
    };
    // An explicit stack, not recursion: a page may nest thousands of levels deep. Strings on it
    // are ::after content, written once the element's children are done.
    // `{only}` is a node a slot shows: read without its siblings, which the slot may not show.
    // An element is read in the flat tree, as Chrome reads it: a web component's own shadow tree
    // (with what its slots show), not its light children as they stand in the document.
    const root = node.nodeType === 1 ? shadowOf(/** @type {Element} */ (node)) || node : node;
    /** @type {(Node|string|null|{only: Node})[]} */
    const stack = [root.firstChild];
    if (opts.naming && node.nodeType === 1) {
      add(generated(/** @type {Element} */ (node), "::before"));
      stack.unshift(generated(/** @type {Element} */ (node), "::after"));
    }
    // Past the cap (a trailing space aside) the rest is cut, and clean() says so with an ellipsis.
    while (stack.length && out.length <= cap + 1) {
      const popped = stack.pop();
      if (popped === null || popped === undefined) continue;
      if (typeof popped === "string") {
        add(popped);
        continue;
      }
      const c = "only" in popped ? popped.only : popped;
      if (c === popped) stack.push(c.nextSibling);
      if (c.nodeType === 3) {
        const data = /** @type {Text} */ (c).data;
        // A space after nothing or after a space adds nothing: only the others are worth asking about.
        if (opts.naming && HTML_SPACES_ONLY.test(data) && (out === "" || out.endsWith(" ") || (!opts.hidden && spaceDropped(/** @type {Text} */ (c))))) continue;
        add(opts.naming && c.parentElement ? transformed(data, c.parentElement) : data);
      } else if (c.nodeType === 1) {
        const el = /** @type {Element} */ (c);
        const tag = el.localName;
        if (SKIP.has(tag)) continue;
        if (el === opts.exclude) {
          add(" "); // the labelled control adds nothing to its label's text, but parts what is around it
          continue;
        }
        if (!opts.hidden && (el.hasAttribute("hidden") || el.getAttribute("aria-hidden") === "true")) continue;
        // A name is what is rendered: nothing of a display:none or invisible part.
        const style = opts.naming ? getComputedStyle(el) : null;
        if (style && !opts.hidden && (style.display === "none" || style.visibility !== "visible")) continue;
        if (opts.naming) {
          const value = embeddedValue(el, tag);
          if (value !== null) {
            add(` ${value} `);
            continue;
          }
        }
        if (tag === "img" || tag === "area") {
          // An image inside a name has its own name: alt, or its title when it has no alt at all.
          const alt = el.getAttribute("alt") ?? (opts.naming ? el.getAttribute("title") || "" : "");
          add(` ${alt} `);
          continue;
        }
        const role = firstRole(el);
        if (tag === "svg") {
          // An icon with a role of its own (role=img) is named only by itself. A bare one adds the
          // title of the sprite symbol it draws to a name, as Chrome 156.0.8078.108 reads it ("Sign
          // up now arrow-right" for a link of that text and an arrow icon; 156.0.8078.73 read
          // "Sign up now"); other text takes it only when it has nothing else.
          const own = el.getAttribute("aria-label") || el.querySelector("title")?.textContent;
          if (own) add(` ${own} `);
          else if (!role && opts.naming) add(` ${usedTitles(el)} `);
          else if (!role) drawn += ` ${usedTitles(el)}`;
          add(" ");
          continue;
        }
        const label = el.getAttribute("aria-label");
        if (label) {
          add(` ${label} `);
          continue;
        }
        if (opts.naming && (role ? NAME_ONLY_ROLES.has(role) : NAME_ONLY_TAGS.has(tag))) {
          add(` ${ownName(el, tag)} `);
          continue;
        }
        // Parts laid out as boxes of their own (blocks, inline-blocks, flex and grid items) are
        // words apart, as Chrome reads them; only plain inline parts run together.
        const block = tag === "br" || (style ? style.display !== "inline" && style.display !== "contents" : tag === "p" || tag === "div" || tag === "li");
        if (block) add(" ");
        if (opts.naming) {
          const pseudo = pseudoBudget-- > 0;
          if (pseudo) add(generated(el, "::before"));
          stack.push((pseudo ? generated(el, "::after") : "") + (block ? " " : ""));
        }
        // A slot reads as what it shows: the host's children assigned to it (a web component's
        // label, as Chrome names Shoelace's <sl-checkbox>Select all</sl-checkbox>), else its own.
        const shown = tag === "slot" ? /** @type {HTMLSlotElement} */ (el).assignedNodes({ flatten: true }) : [];
        // Those children are outside the element's own tree: their changes are not watched as its own.
        if (shown.length) readOutside = true;
        for (let i = shown.length - 1; i >= 0; i--) stack.push({ only: shown[i] });
        if (!shown.length) stack.push((shadowOf(el) || el).firstChild);
      }
    }
    return clean(out, cap) || clean(drawn, cap);
  }

  /**
   * Whether a node aria-labelledby points at is hidden from everyone: not rendered (display,
   * visibility hidden or collapse, the hidden attribute) or aria-hidden on it or around it.
   * @param {Element} target
   */
  function hiddenFromAll(target) {
    if (typeof target.checkVisibility === "function" && !target.checkVisibility({ visibilityProperty: true })) return true;
    return target.closest('[aria-hidden="true"]') !== null;
  }

  /**
   * The name aria-labelledby gives (or aria-labeledby, the misspelling browsers accept, when the
   * right spelling is absent). A hidden target is read whole, its hidden descendants included
   * (accname 2B: LabelledBy recursion with Hidden Not Referenced); a rendered one without them.
   * @param {Element} el
   */
  function labelledBy(el) {
    const ids = el.getAttribute("aria-labelledby") ?? el.getAttribute("aria-labeledby");
    if (!ids) return "";
    readOutside = true;
    const root = /** @type {Document|ShadowRoot} */ (el.getRootNode());
    const parts = [];
    for (const id of ids.split(/\s+/)) {
      const target = root.getElementById ? root.getElementById(id) : null;
      if (!target) continue;
      parts.push(cleanLabel(target.getAttribute("aria-label"), NAME_CAP) || textOf(target, NAME_CAP, { naming: true, hidden: hiddenFromAll(target) }));
    }
    return clean(parts.join(" "), NAME_CAP);
  }

  /** @param {Element} el */
  function isField(el) {
    const t = el.localName;
    return t === "input" || t === "select" || t === "textarea";
  }

  /**
   * The accessible name as Chrome computes it (accname 1.2 with HTML-AAM's native rules, for
   * the elements the snapshot lists): aria-labelledby, aria-label, then the host language
   * (input buttons' value or their default "Submit"/"Reset", image inputs' alt, labels with
   * embedded controls read by value), then the content for roles named by it (with CSS
   * generated content), then title, then placeholder. A form field's `name` attribute is not a
   * name: the snapshot shows it as `field=` instead.
   * Names read only from the element and its subtree are cached for the next snapshot
   * (content/name_cache.js); a form field's (its labels) and input's (its value) never are.
   * @param {Element} el @param {string} role
   */
  function nameOf(el, role) {
    const cached = core.names?.get(el);
    if (cached !== undefined) return cached;
    readOutside = false;
    const name = computeName(el, role);
    if (!readOutside && !isField(el)) core.names?.set(el, name);
    return name;
  }

  /**
   * Roles Chrome never names from their content (ARIA's name from author only): what a div
   * combobox shows is its value, not its name, and a slider's text is its value text.
   */
  const NAMED_BY_AUTHOR = new Set(["textbox", "searchbox", "combobox", "listbox", "slider", "spinbutton", "scrollbar", "progressbar", "meter"]);

  /** @param {Element} el @param {string} role */
  function computeName(el, role) {
    const n = labelledBy(el) || cleanLabel(el.getAttribute("aria-label"), NAME_CAP);
    if (n) return n;
    const tag = el.localName;
    const title = () => clean(el.getAttribute("title"), NAME_CAP);
    if (tag === "input") {
      const input = /** @type {HTMLInputElement} */ (el);
      if (input.type === "image") return clean(el.getAttribute("alt") || el.getAttribute("value") || "", NAME_CAP) || title() || "Submit";
      if (input.type === "submit" || input.type === "reset") return clean(input.value, NAME_CAP) || (input.type === "submit" ? "Submit" : "Reset");
      if (input.type === "button") return clean(input.value, NAME_CAP) || title();
    }
    if (isField(el)) {
      // A hidden label names nothing (a page that repeats a form in a closed panel labels one
      // field twice, once out of sight).
      const labels = /** @type {HTMLLabelElement[]} */ (Array.from(/** @type {Labelable} */ (el).labels || []))
        .filter((l) => typeof l.checkVisibility !== "function" || l.checkVisibility({ visibilityProperty: true }));
      const labelled = clean(labels.map((l) => textOf(l, NAME_CAP, { naming: true, exclude: el })).join(" "), NAME_CAP);
      const fallback = tag === "input" && /** @type {HTMLInputElement} */ (el).type === "file" ? "Choose File" : "";
      return labelled || title() || clean(el.getAttribute("placeholder"), NAME_CAP) || fallback;
    }
    if (tag === "img") return clean(el.getAttribute("alt"), NAME_CAP) || title();
    // A dialog is named by its label, never by what it says (Chrome's name from author only).
    if (DIALOG_ROLES.has(role)) return title();
    const content = NAMED_BY_AUTHOR.has(role) ? "" : textOf(el, NAME_CAP, { naming: true });
    return content || title();
  }

  /** Whether the page registered any pointer listener on an element (asked once per walk). */
  let pagesListen = false;
  const LISTENS = "__waymark_listens";

  /** Whether a script gave `el` a pointer listener: the page-world script cancels the query. @param {Element} el */
  function listens(el) {
    return !el.dispatchEvent(new Event(LISTENS, { cancelable: true }));
  }

  /** Whether a script made `el` an HTML5 drop zone (a `drop` listener): a drag's `to_ref`. @param {Element} el */
  function dropZone(el) {
    return !el.dispatchEvent(new Event("__waymark_drops", { cancelable: true }));
  }

  /** What a clickable container may hold that a person would click instead of the container. */
  const HELD_CONTROLS = "a[href], button, input, select, textarea, summary, [role=button], [role=link]";

  /**
   * The role of an element a person could operate, or null.
   * @param {Element} el @param {string} tag
   */
  function interactiveRole(el, tag) {
    const explicit = firstRole(el);
    if (WIDGET_ROLES.has(explicit) || READOUT_ROLES.has(explicit)) return explicit;
    switch (tag) {
      case "progress":
        return "progressbar";
      case "meter":
        return "meter";
      case "td":
        // A cell of a grid with a roving tabindex (a date grid's days): each is operated, not only the focused one.
        if (el.hasAttribute("tabindex") && !explicit && el.closest("[role=grid], [role=treegrid]")) return "gridcell";
        break;
      case "a":
      case "area":
        if (el.hasAttribute("href")) return "link";
        // An anchor without href that a script listens on is still operated as a link (date pickers' Prev/Next).
        if (pagesListen && listens(el)) return "link";
        break;
      case "button":
        return "button";
      case "input": {
        const type = /** @type {HTMLInputElement} */ (el).type;
        if (type === "hidden") return null;
        return INPUT_ROLES[type] || "textbox";
      }
      case "select": {
        const s = /** @type {HTMLSelectElement} */ (el);
        return s.multiple || s.size > 1 ? "listbox" : "combobox";
      }
      case "textarea":
        return "textbox";
      case "summary":
        return "button";
    }
    if (el.hasAttribute("contenteditable") && /** @type {HTMLElement} */ (el).isContentEditable) {
      const parent = el.parentElement;
      if (!parent || !parent.isContentEditable) return "textbox";
    }
    if (el.hasAttribute("onclick")) return "clickable";
    // A script listener (content/listeners.js) on a leaf, or on an element styled as clickable.
    // A container listened on that holds a link or control of its own (a listicle's card around
    // its item's link) is not a target besides them: a person's click lands on those, and
    // listing both would name every card twice.
    if (pagesListen && listens(el) && (el.childElementCount === 0 || (getComputedStyle(el).cursor === "pointer" && !el.querySelector(HELD_CONTROLS)))) return "clickable";
    // Focusable and styled as clickable, or a focusable leaf (a slider's handle, operated by keys or a drag).
    if (el.hasAttribute("tabindex") && /** @type {HTMLElement} */ (el).tabIndex >= 0 && (el.childElementCount === 0 || getComputedStyle(el).cursor === "pointer")) return "clickable";
    // A leaf focusable by script only (tabindex -1) that its author named: a date picker's day
    // ("January 11, 2026"), moved to by its arrow keys and clicked, its page listening on the
    // calendar around it. Chrome's tree lists it, focusable, by that name.
    if (el.hasAttribute("tabindex") && el.hasAttribute("aria-label") && el.childElementCount === 0) return "clickable";
    if (pagesListen && dropZone(el)) return "dropzone";
    return null;
  }

  /** Roles of dialogs: one the page shows is something a person deals with (answers, closes), listed whether or not it covers anything. */
  const DIALOG_ROLES = new Set(["dialog", "alertdialog"]);

  /**
   * The dialog role Chrome's accessibility tree gives the element (a <dialog> is one), or "".
   * @param {Element} el @param {string} tag
   */
  function dialogRole(el, tag) {
    const explicit = firstRole(el);
    if (DIALOG_ROLES.has(explicit)) return explicit;
    return !explicit && tag === "dialog" ? "dialog" : "";
  }

  /** The focused element, through shadow roots. */
  function deepActive() {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  }

  /** @param {Element} el */
  function isSecret(el) {
    if (core.typedSecret?.(el)) return true;
    if (el.localName !== "input") return false;
    const input = /** @type {HTMLInputElement} */ (el);
    return input.type === "password" || SECRET_AUTOCOMPLETE.test(input.autocomplete || el.getAttribute("autocomplete") || "");
  }

  /**
   * Value and present states of an element. Secret values are never read out: only whether
   * the field has one.
   * @param {Element} el @param {string} role @param {Element|null} active
   */
  function valueAndStates(el, role, active) {
    /** @type {Record<string, string|number|boolean>} */
    const states = {};
    /** @type {string|null} */
    let value = null;
    /** @type {string[]|undefined} */
    let options;
    const tag = el.localName;
    const props = /** @type {Element & {selected?: boolean, disabled?: boolean, required?: boolean, readOnly?: boolean}} */ (el);
    if (tag === "input") {
      const input = /** @type {HTMLInputElement} */ (el);
      if (input.type === "checkbox" || input.type === "radio") {
        states.checked = input.indeterminate ? "mixed" : input.checked;
      } else if (isSecret(el)) {
        if (input.value) states.has_value = true;
        if (input.type !== "password" && core.typedSecret?.(el)) states.secret = true;
      } else if (!(input.type in INPUT_ROLES) || input.type === "range" || input.type === "number" || input.type === "search") {
        value = clean(input.value, VALUE_CAP);
        if (input.type !== "text" && input.type !== "search" && !(input.type in INPUT_ROLES)) states.type = input.type;
      }
    } else if (isSecret(el)) {
      // A text area or editable element a secret was typed into: only that it holds one.
      if (/** @type {HTMLTextAreaElement} */ (el).value || el.textContent) states.has_value = true;
      states.secret = true;
    } else if (tag === "textarea") {
      value = clean(/** @type {HTMLTextAreaElement} */ (el).value, VALUE_CAP);
      // A field of several lines says so, as Chrome's accessibility tree does: a one-line input
      // and a text area are both textboxes, and a task may name one of them.
      states.multiline = true;
    } else if (tag === "select") {
      const select = /** @type {HTMLSelectElement} */ (el);
      value = clean(Array.from(select.selectedOptions, (o) => o.label || o.text).join(", "), VALUE_CAP);
      options = Array.from(select.options).slice(0, OPTIONS_CAP).map((o) => clean(o.label || o.text, 40));
      if (select.options.length > OPTIONS_CAP) states.options_total = select.options.length;
      if (select.multiple) states.multiple = true;
    } else if (role === "textbox" && /** @type {HTMLElement} */ (el).isContentEditable) {
      value = textOf(el, VALUE_CAP);
    } else if (RANGE_ROLES.has(role)) {
      // A range widget's value now, as Chrome's tree gives it (a number); its words, when the
      // page gives others ("25 degrees"), beside it.
      value = rangeNow(el, tag);
      const words = clean(el.getAttribute("aria-valuetext"), VALUE_CAP);
      if (words && words !== value) states.valuetext = words;
    } else if (role === "combobox" && !el.querySelector(HELD_BY_COMBOBOX)) {
      // A combobox that is not a field (Select2, a select-only combobox) shows its value as its
      // text; one around its own field or popup (ARIA 1.1's pattern) says it there instead.
      value = textOf(el, VALUE_CAP);
    }
    if (el.getAttribute("aria-multiline") === "true") states.multiline = true;
    const ariaChecked = el.getAttribute("aria-checked");
    if (ariaChecked && states.checked === undefined) states.checked = ariaChecked === "mixed" ? "mixed" : ariaChecked === "true";
    if (el.getAttribute("aria-selected") === "true" || (tag === "option" && props.selected)) states.selected = true;
    const expanded = el.getAttribute("aria-expanded");
    if (expanded) states.expanded = expanded === "true";
    else if (tag === "summary" && el.parentElement?.localName === "details") states.expanded = /** @type {HTMLDetailsElement} */ (el.parentElement).open;
    const pressed = el.getAttribute("aria-pressed");
    if (pressed) states.pressed = pressed === "mixed" ? "mixed" : pressed === "true";
    if (props.disabled === true || el.getAttribute("aria-disabled") === "true") states.disabled = true;
    if (props.required === true || el.getAttribute("aria-required") === "true") states.required = true;
    // Invalid as the page itself says: aria-invalid, or HTML constraint validation of a value
    // given (an empty required field is said by `required` and no value, not here).
    const field = /** @type {Element & {value?: unknown, willValidate?: boolean, validity?: ValidityState}} */ (el);
    const given = typeof field.value === "string" && field.value !== "";
    if (el.getAttribute("aria-invalid") === "true" || (given && field.willValidate === true && field.validity?.valid === false)) states.invalid = true;
    if ((props.readOnly === true && isField(el)) || el.getAttribute("aria-readonly") === "true") states.readonly = true;
    if (el === active) states.focused = true;
    ariaStates(el, role, states);
    placeOf(el, states);
    return { value, states, options };
  }

  /**
   * The value now of a range widget (slider, spinbutton, progressbar, meter, scrollbar) that is
   * not a text field: aria-valuenow as a number, or a <progress> or <meter>'s own; null when it
   * has none (an indeterminate progress bar).
   * @param {Element} el @param {string} tag
   */
  function rangeNow(el, tag) {
    const now = el.getAttribute("aria-valuenow");
    if (now !== null && now.trim() !== "" && Number.isFinite(Number(now))) return String(Number(now));
    if (tag === "meter") return String(/** @type {HTMLMeterElement} */ (el).value);
    if (tag === "progress" && el.hasAttribute("value")) return String(/** @type {HTMLProgressElement} */ (el).value);
    return null;
  }

  /** What a combobox may hold that says its value itself: its text field, or its open popup. */
  const HELD_BY_COMBOBOX = "input, select, textarea, [contenteditable], [role=listbox], [role=tree], [role=grid]";

  /** The popups aria-haspopup names; "true" means a menu (WAI-ARIA). */
  const POPUPS = new Set(["menu", "listbox", "tree", "grid", "dialog"]);
  /** The aria-sort values that say an order. */
  const SORTS = new Set(["ascending", "descending", "other"]);

  /**
   * The ARIA states a role has beside value and checked (Chrome's tree has them all): a tree
   * item's level, the popup a control opens, aria-current, and the sort order of the column
   * header holding the element (a sort button inside a <th aria-sort>).
   * @param {Element} el @param {string} role @param {Record<string, string|number|boolean>} states
   */
  function ariaStates(el, role, states) {
    if (role === "treeitem") states.level = treeLevel(el);
    const popup = (el.getAttribute("aria-haspopup") || "").trim().toLowerCase();
    if (popup === "true" || POPUPS.has(popup)) states.haspopup = popup === "true" ? "menu" : popup;
    const current = (el.getAttribute("aria-current") || "").trim().toLowerCase();
    if (current && current !== "false") states.current = current === "true" ? true : current;
    const header = el.closest("[aria-sort]");
    const sort = header && (header === el || header.localName === "th" || firstRole(header) === "columnheader") ? header.getAttribute("aria-sort") : null;
    if (sort && SORTS.has(sort)) states.sort = sort;
  }

  /** A tree item's level: aria-level, else one more than the tree items around it (as Chrome counts). @param {Element} el */
  function treeLevel(el) {
    const given = Number(el.getAttribute("aria-level"));
    if (Number.isInteger(given) && given > 0) return given;
    let level = 1;
    for (let up = el.parentElement?.closest("[role=treeitem]"); up; up = up.parentElement?.closest("[role=treeitem]")) level++;
    return level;
  }

  /** The context keys that tell repeated controls apart: kept only where a name repeats. */
  const REPEAT_CONTEXT = ["row", "article"];

  /**
   * Drop the row and article of elements whose role and name no other element of the frame has:
   * a link unique on its page needs no row to be told apart, and a data table of links would
   * otherwise say each link's row twice (measured on the corpus: Wikipedia's tables).
   * @param {WalkItem[]} items
   */
  function onlyWhereRepeated(items) {
    /** @type {Map<string, number>} */
    const counts = new Map();
    const keyOf = (/** @type {WalkElement} */ e) => `${e.role}\n${e.name}`;
    for (const item of items) if (item.t === "e") counts.set(keyOf(item), (counts.get(keyOf(item)) || 0) + 1);
    for (const item of items) {
      if (item.t !== "e" || !item.states || (counts.get(keyOf(item)) || 0) > 1) continue;
      for (const key of REPEAT_CONTEXT) delete item.states[key];
      if (!Object.keys(item.states).length) delete item.states;
    }
  }

  /** Cells of a table or grid row (HTML-AAM's and ARIA's). */
  const CELLS = "td, th, [role=cell], [role=gridcell], [role=rowheader], [role=columnheader]";
  const CONTEXT_CAP = 40;

  /**
   * Where a repeated control stands, so "Edit" five times says which: the row of a table or grid
   * that holds it (`row`: its row header, else its first cell, as Chrome names those cells), the
   * article of a feed (`article`), and the named grid around it (`grid`: a date grid's month).
   * @param {Element} el @param {Record<string, string|number|boolean>} states
   */
  function placeOf(el, states) {
    const row = el.closest("tr, [role=row]");
    if (row) {
      const cells = Array.from(row.children).filter((c) => c.matches(CELLS));
      const header = cells.find((c) => c.getAttribute("scope") === "row" || firstRole(c) === "rowheader");
      const label = header || cells[0];
      const heads = cells.every((c) => c.localName === "th" || firstRole(c) === "columnheader");
      if (label && !label.contains(el) && !heads && cells.length > 1) {
        const text = textOf(label, CONTEXT_CAP, { naming: true });
        if (text) states.row = text;
      }
    }
    const article = el.closest("article, [role=article]");
    if (article && article.parentElement && firstRole(article.parentElement) === "feed") {
      const heading = article.querySelector("h1, h2, h3, h4, h5, h6, [role=heading]");
      const name = labelledBy(article) || clean(article.getAttribute("aria-label"), CONTEXT_CAP) || (heading ? textOf(heading, CONTEXT_CAP) : "");
      if (name) states.article = clean(name, CONTEXT_CAP);
    }
    const grid = el.closest("[role=grid], [role=treegrid]");
    if (grid) {
      const name = labelledBy(grid) || clean(grid.getAttribute("aria-label"), CONTEXT_CAP);
      if (name) states.grid = clean(name, CONTEXT_CAP);
    }
  }

  /** @param {{x: number, y: number, width: number, height: number}} r @returns {[number, number, number, number]} */
  function boxOf(r) {
    return [Math.round(r.x * 10) / 10, Math.round(r.y * 10) / 10, Math.round(r.width * 10) / 10, Math.round(r.height * 10) / 10];
  }

  /** @type {CheckVisibilityOptions} */
  const VISIBILITY_OPTIONS = ({ opacityProperty: true, visibilityProperty: true, checkOpacity: true, checkVisibilityCSS: true });

  /** Rendered, whatever its opacity. */
  const RENDERED_OPTIONS = ({ visibilityProperty: true, checkVisibilityCSS: true });

  /**
   * The box of an element a person can see, or null: rendered (checkVisibility: display along
   * ancestors, visibility, opacity, content-visibility) and not of zero size. A visually hidden
   * checkbox or radio with a visible label counts as visible at its label (custom controls). A
   * transparent text field counts as visible: terminals and code editors take their keys through
   * one (opacity 0, a pixel wide), and Chrome's accessibility tree lists it as a textbox.
   * @param {Element} el @param {string=} role
   * @returns {DOMRect|null}
   */
  function visibleRect(el, role) {
    const options = role === "textbox" && isField(el) ? RENDERED_OPTIONS : VISIBILITY_OPTIONS;
    const visible = typeof el.checkVisibility === "function" ? el.checkVisibility(options) : true;
    if (visible) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) return r;
      // display:contents and similar: no own box; the children carry it (recall bias).
      for (let c = el.firstElementChild, i = 0; c && i < 5; c = c.nextElementSibling, i++) {
        const cr = c.getBoundingClientRect();
        if (cr.width > 0 && cr.height > 0) return cr;
      }
    }
    const labels = isField(el) ? /** @type {Labelable} */ (el).labels : null;
    if (labels) {
      for (const label of labels) {
        if (label.checkVisibility && !label.checkVisibility(VISIBILITY_OPTIONS)) continue;
        const r = label.getBoundingClientRect();
        if (r.width > 0 && r.height > 0) return r;
      }
    }
    return null;
  }

  /** @param {string} color */
  function transparentColor(color) {
    return color === "transparent" || /rgba\([^)]*,\s*0(\.0+)?\)$/.test(color);
  }

  /**
   * Occlusion: which element, if any, hides `el` from a person. Hit-tests the centre and four
   * inset points; any point that lands on the element, a descendant, an ancestor or one of
   * its labels means visible (recall bias), and so does a layer that paints nothing.
   */
  class Occlusion {
    /** @param {number} vw @param {number} vh */
    constructor(vw, vh) {
      this.vw = vw;
      this.vh = vh;
      /** @type {Map<Element, boolean>} */
      this.paints = new Map();
      /** @type {Map<Element, Element|null>} */
      this.containers = new Map();
      /** @type {Map<Element, boolean>} */
      this.bars = new Map();
    }

    /**
     * Whether a layer is a bar along the top or bottom edge of the viewport, less than half its
     * height (a sticky masthead, a cookie bar, an anchor ad): it hides nothing for good, since
     * scrolling brings what is under it into the free part of the viewport, as dispatch does
     * before it clicks. Only a layer over most of the viewport (a modal's backdrop) hides.
     * @param {Element} layer
     */
    isEdgeBar(layer) {
      let v = this.bars.get(layer);
      if (v === undefined) {
        const r = layer.getBoundingClientRect();
        v = r.height < this.vh / 2 && (r.top <= 1 || r.bottom >= this.vh - 1);
        this.bars.set(layer, v);
      }
      return v;
    }

    /** @param {Element} hit */
    paintsNothing(hit) {
      let v = this.paints.get(hit);
      if (v === undefined) {
        const s = getComputedStyle(hit);
        v = Number(s.opacity) < 0.05 || (
          transparentColor(s.backgroundColor) && s.backgroundImage === "none" && !hit.firstElementChild &&
          !(hit.textContent || "").trim() && !parseFloat(s.borderTopWidth) && !parseFloat(s.borderLeftWidth)
        );
        this.paints.set(hit, v);
      }
      return v;
    }

    /**
     * The element hiding `el` at its box `r`, or null when a person can see it.
     * @param {Element} el @param {DOMRect} r
     * @returns {Element|null}
     */
    occluderOf(el, r) {
      const root = /** @type {Document|ShadowRoot} */ (el.getRootNode());
      if (typeof root.elementFromPoint !== "function") return null;
      const xs = [r.x + r.width / 2, r.x + r.width * 0.2, r.x + r.width * 0.8];
      const ys = [r.y + r.height / 2, r.y + r.height * 0.2, r.y + r.height * 0.8];
      const points = [[xs[0], ys[0]], [xs[1], ys[1]], [xs[2], ys[1]], [xs[1], ys[2]], [xs[2], ys[2]]];
      /** @type {Element|null} */
      let last = null;
      for (const [x, y] of points) {
        if (x < 0 || y < 0 || x >= this.vw || y >= this.vh) continue;
        const hit = root.elementFromPoint(x, y);
        if (!hit) continue;
        if (hit === el || el.contains(hit) || hit.contains(el)) return null;
        const labels = isField(el) ? /** @type {Labelable} */ (el).labels : null;
        if (labels && Array.from(labels).some((l) => l.contains(hit))) return null;
        if (this.paintsNothing(hit)) return null;
        last = hit;
      }
      return last;
    }

    /**
     * The layer a person would dismiss: the outermost fixed or sticky ancestor of the hit
     * element (a modal, a banner), else its outermost absolutely positioned one. Null when
     * the hit is in normal flow: overlapping in-flow content is a layout accident, not a
     * layer, and the element is kept (recall bias).
     * @param {Element} hit
     * @returns {Element|null}
     */
    containerOf(hit) {
      let c = this.containers.get(hit);
      if (c !== undefined) return c;
      /** @type {Element|null} */
      let fixed = null;
      /** @type {Element|null} */
      let absolute = null;
      for (let e = /** @type {Element|null} */ (hit); e && e !== document.body && e !== document.documentElement;) {
        const pos = getComputedStyle(e).position;
        if (pos === "fixed" || pos === "sticky") fixed = e;
        else if (pos === "absolute") absolute = e;
        const parent = /** @type {Element|null} */ (e.parentElement || /** @type {Partial<ShadowRoot>|null} */ (e.parentNode)?.host || null);
        e = parent;
      }
      c = fixed || absolute || null;
      this.containers.set(hit, c);
      return c;
    }
  }

  /** Implicit roles of the elements a page builds layers from (HTML-AAM). */
  const LAYER_ROLES = /** @type {Record<string, string>} */ ({ aside: "complementary", nav: "navigation", section: "region", form: "form", header: "banner", footer: "contentinfo" });

  /** The index of a child frame's window in this window's `frames`. @param {Window} win */
  function childFrameIndex(win) {
    for (let i = 0; i < window.frames.length; i++) if (window.frames[i] === win) return i;
    return -1;
  }

  /** Roles of live regions: what they say changes as the page answers (a quantity, "Saved"). */
  const LIVE_ROLES = new Set(["status", "alert", "log", "timer", "marquee"]);
  const LIVE_CAP = 100;

  /**
   * The live-region role Chrome's accessibility tree gives the element (an <output> is a
   * status), or "". A bare aria-live element is generic there, so it is not one here either.
   * @param {Element} el @param {string} tag
   */
  function liveRole(el, tag) {
    const explicit = firstRole(el);
    if (LIVE_ROLES.has(explicit)) return explicit;
    return !explicit && tag === "output" ? "status" : "";
  }

  /** @param {Element} el */
  function headingLevel(el) {
    const tag = el.localName;
    if (tag.length === 2 && tag[0] === "h" && tag[1] >= "1" && tag[1] <= "6") return Number(tag[1]);
    if (el.getAttribute("role") === "heading") return Number(el.getAttribute("aria-level")) || 2;
    return 0;
  }

  /**
   * Walk the frame's document and produce its items.
   * @param {{occlusion?: boolean, framesOnly?: boolean}} opts
   */
  function collect(opts) {
    const t0 = performance.now();
    if (!opts.framesOnly) core.names?.begin();
    pagesListen = !document.dispatchEvent(new Event(`${LISTENS}_any`, { cancelable: true }));
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const occlusion = opts.occlusion !== false && !opts.framesOnly ? new Occlusion(vw, vh) : null;
    const active = deepActive();
    /** @type {WalkItem[]} */
    const items = [];
    /** @type {Map<Element, number>} */
    const occluders = new Map();
    /** Dialogs listed in document order; one that covers other elements is listed as a layer instead. @type {Map<Element, WalkItem>} */
    const dialogs = new Map();
    const counts = { candidates: 0, hidden: 0, occluded: 0, headings: 0 };

    /** @param {Element} el */
    const frameItem = (el) => {
      const win = /** @type {HTMLIFrameElement} */ (el).contentWindow;
      const r = visibleRect(el);
      const rect = el.getBoundingClientRect();
      const box = [rect.x + el.clientLeft, rect.y + el.clientTop, el.clientWidth, el.clientHeight];
      items.push({ t: "f", index: win ? childFrameIndex(win) : -1, box: boxOf({ x: box[0], y: box[1], width: box[2], height: box[3] }), hidden: !r, src: /** @type {HTMLIFrameElement} */ (el).src || "" });
    };

    /** @param {Element} el @param {string} role */
    const candidate = (el, role) => {
      counts.candidates++;
      const r = visibleRect(el, role);
      if (!r) {
        counts.hidden++;
        return;
      }
      const inView = r.x < vw && r.y < vh && r.x + r.width > 0 && r.y + r.height > 0;
      // A field a secret was typed into is always listed, covered or not: a translucent overlay
      // shows it through, and its box is painted over in the screenshot only if it is listed.
      if (occlusion && inView && !core.typedSecret?.(el)) {
        const hit = occlusion.occluderOf(el, r);
        if (hit) {
          const container = occlusion.containerOf(hit);
          if (container && !container.contains(el) && !occlusion.isEdgeBar(container)) {
            counts.occluded++;
            occluders.set(container, (occluders.get(container) || 0) + 1);
            return;
          }
        }
      }
      const { value, states, options } = valueAndStates(el, role, active);
      /** @type {WalkElement} */
      const item = { t: "e", l: core.refFor(el), role, name: nameOf(el, role), box: boxOf(r) };
      if (isField(el)) {
        // Not the name, but what a model may still go by when a field has none.
        const field = el.getAttribute("name");
        const placeholder = clean(el.getAttribute("placeholder"), NAME_CAP);
        if (field && !item.name) item.field = clean(field, 60);
        if (placeholder && placeholder !== item.name) item.placeholder = placeholder;
      }
      // Which of this frame's forms holds a field or button: a press sends only its own form.
      const owner = /** @type {{form?: HTMLFormElement|null}} */ (el).form;
      if (owner) item.form = Array.prototype.indexOf.call(document.forms, owner);
      if (value !== null && value !== "") item.value = value;
      if (Object.keys(states).length) item.states = states;
      if (options) item.options = options;
      if (role === "link") {
        const href = /** @type {Element & {href?: string|SVGAnimatedString}} */ (el).href;
        item.href = typeof href === "string" ? href : href?.baseVal || "";
      } else if (owner && (el instanceof HTMLButtonElement || el instanceof HTMLInputElement) && (el.type === "submit" || el.type === "image")) {
        // Where a submit button sends its form, as the page says it: its own formaction, else the
        // form's action attribute (`formAction` alone gives the page's address when only the form
        // has one; `form.action` is clobbered by a field named "action").
        const action = el.getAttribute("formaction") || owner.getAttribute("action") || document.URL;
        try {
          item.href = new URL(action, document.baseURI).href;
        } catch {
          /* an address the page cannot send to */
        }
      }
      items.push(item);
      if (DIALOG_ROLES.has(role)) dialogs.set(el, item);
    };

    /**
     * A context line's text and box: the element visible, drawn and saying something, else null.
     * @param {Element} el @param {number} cap
     */
    const shownText = (el, cap) => {
      if (typeof el.checkVisibility === "function" && !el.checkVisibility(VISIBILITY_OPTIONS)) return null;
      const text = textOf(el, cap);
      const r = text ? el.getBoundingClientRect() : null;
      return r && r.width > 0 && r.height > 0 ? { text, box: boxOf(r) } : null;
    };

    /** @param {Element} el @param {number} level */
    const heading = (el, level) => {
      const shown = shownText(el, HEADING_CAP);
      if (!shown) return;
      counts.headings++;
      items.push({ t: "h", level, ...shown });
    };

    /** A live region's text, as context (no ref): the page's answer to the last action. @param {Element} el @param {string} role */
    const live = (el, role) => {
      const shown = shownText(el, LIVE_CAP);
      if (shown) items.push({ t: "s", role, ...shown });
    };

    /**
     * Document order with an explicit stack, not recursion: a page may nest thousands of levels
     * deep. Each element's shadow tree comes before its light children, then its next sibling.
     * @param {ParentNode} parent
     */
    const walk = (parent) => {
      /** @type {(Element|null)[]} */
      const stack = [parent.firstElementChild];
      while (stack.length) {
        const el = stack.pop();
        if (!el) continue;
        stack.push(el.nextElementSibling);
        const tag = el.localName;
        if (SKIP.has(tag)) continue;
        if (tag === "iframe" || tag === "frame") {
          frameItem(el);
          continue;
        }
        // `hidden` subtrees (display:none unless a stylesheet overrides it) are skipped whole.
        if (el.hasAttribute("hidden") && typeof el.checkVisibility === "function" && !el.checkVisibility()) continue;
        if (!opts.framesOnly) {
          const role = interactiveRole(el, tag) || dialogRole(el, tag);
          if (role) candidate(el, role);
          else {
            const level = headingLevel(el);
            const region = level ? "" : liveRole(el, tag);
            if (level) heading(el, level);
            else if (region) live(el, region);
          }
        }
        stack.push(el.firstElementChild);
        const sr = shadowOf(el);
        if (sr) stack.push(sr.firstElementChild);
      }
    };
    // A frame drawn at no size (a tracking pixel, a display:none ad slot) shows nothing: not walked.
    const drawn = window === window.top || (vw > 0 && vh > 0);
    if (document.documentElement && drawn) walk(document);

    onlyWhereRepeated(items);

    /** @type {WalkItem[]} */
    const layers = [];
    for (const [el, count] of occluders) {
      const listed = dialogs.get(el);
      if (listed) items.splice(items.indexOf(listed), 1);
      const r = el.getBoundingClientRect();
      // The layer's own role as Chrome gives it (a plain div is generic); `occluding` says what it does.
      const role = firstRole(el) || (el.localName === "dialog" || el.getAttribute("aria-modal") === "true" ? "dialog" : LAYER_ROLES[el.localName] || "generic");
      const name = clean(el.getAttribute("aria-label"), NAME_CAP) || labelledBy(el) || textOf(el, 60);
      layers.push({ t: "e", l: core.refFor(el), role, name, box: boxOf(r), states: { occluding: count } });
    }

    return {
      docId: core.docId,
      url: location.href,
      title: window === window.top ? clean(document.title, 200) : "",
      pdf: document.contentType === "application/pdf",
      frameIndex: core.frameIndex(),
      viewport: {
        width: vw, height: vh, scroll_x: Math.round(window.scrollX), scroll_y: Math.round(window.scrollY),
        page_width: document.documentElement ? document.documentElement.scrollWidth : vw,
        page_height: document.documentElement ? document.documentElement.scrollHeight : vh,
        dpr: window.devicePixelRatio,
      },
      items: layers.concat(items),
      counts,
      ms: Math.round((performance.now() - t0) * 10) / 10,
    };
  }

  // Each snapshot sweeps the registry first: a page that re-renders would otherwise keep every
  // detached element's entry, and the service worker forgets the refs reported as dropped.
  core.handle(KIND.SNAPSHOT, (/** @type {{kind: string, occlusion?: boolean}} */ msg) => {
    core.sweep();
    core.names?.sweep();
    return { ...collect({ occlusion: msg.occlusion !== false }), dropped: core.takeDropped() };
  });
  /** Only the child-frame placeholders: the current offsets of child frames (dispatch uses them). */
  core.handle(KIND.FRAMES, () => collect({ framesOnly: true }));
  // The recorder (content/recorder.js) names what a person operated as the snapshot names it, so
  // a recorded step's target is the element the agent and the replay see.
  core.roleName = (el) => {
    const role = interactiveRole(el, el.localName);
    return role ? { role, name: nameOf(el, role) } : null;
  };
  /** Diagnostics: is each local ref still alive, and what is it. */
  core.handle(KIND.REFINFO, (/** @type {{kind: string, refs?: number[]}} */ msg) => (msg.refs || []).map((l) => {
    const el = core.elementFor(l);
    return el ? { l, live: true, tag: el.localName, text: textOf(el, 60) } : { l, live: false };
  }));
  /** Benchmarks: tag the elements of these local refs with an attribute so a page script can count them. */
  core.handle(KIND.MARK_REFS, (/** @type {{kind: string, refs?: number[], attribute?: string}} */ msg) => {
    let marked = 0;
    for (const l of msg.refs || []) {
      const el = core.elementFor(l);
      if (el) {
        el.setAttribute(String(msg.attribute || "data-wm-ref"), String(l));
        marked++;
      }
    }
    return { marked };
  });
})();
