// @ts-check
/**
 * Per-frame half of upload_file, select_text, the clipboard presses and `select` on custom
 * widgets (classic content script, after actions.js, whose helpers it uses through core.act):
 * finding the file input behind a ref, selecting a text range by its text, reading and editing
 * the selection, and finding a custom dropdown's options by their accessible names.
 */
(() => {
  const g = /** @type {import("../shared/content_types.js").ContentGlobal} */ (globalThis);
  // content/core.js runs first in every frame; the check below still guards a frame without it.
  const core = /** @type {import("../shared/content_types.js").ContentCore} */ (g.__waymark);
  const KIND = /** @type {typeof import("../shared/actions.js").KIND} */ (g.__waymarkKinds);
  if (!core || !core.act || core.formsLoaded) return;
  core.formsLoaded = true;
  const { ActError, resolve, describe, isVisible, isDisabled, deepActiveElement, setNativeValue } = core.act;

  // ------------------------------------------------------------------ upload_file

  /** Attribute naming the file input for the service worker's DOM.performSearch; removed after. */
  const UPLOAD_MARK = "data-waymark-upload";

  /**
   * The file input a ref stands for: the input itself, the input a label is for, or the one file
   * input inside a drop zone. Null: the ref is some other control (its click may open a chooser).
   * @param {Element} el
   */
  function fileInputOf(el) {
    if (el instanceof HTMLInputElement) return el.type === "file" ? el : null;
    if (el instanceof HTMLLabelElement) return el.control instanceof HTMLInputElement && el.control.type === "file" ? el.control : null;
    const inside = el.querySelectorAll('input[type="file"]');
    return inside.length === 1 ? /** @type {HTMLInputElement} */ (inside[0]) : null;
  }

  /**
   * Mark the file input behind a ref so the service worker can find its DOM node, after the checks
   * a person's upload meets (enabled, one file unless it takes several).
   * @param {{localRef: number, count: number}} msg
   */
  function uploadTarget(msg) {
    const el = resolve(msg.localRef);
    const input = fileInputOf(el);
    if (!input) return { input: false };
    if (isDisabled(input)) throw new ActError("disabled", `${describe(input)} is disabled`);
    if (msg.count > 1 && !input.multiple) throw new ActError("too_many_files", `${describe(el)} takes one file, not ${msg.count}`);
    const token = core.randomId();
    input.setAttribute(UPLOAD_MARK, token);
    return { input: true, token, accept: input.accept || "" };
  }

  /** @param {{token: string}} msg */
  function uploadDone(msg) {
    for (const el of document.querySelectorAll(`[${UPLOAD_MARK}="${CSS.escape(msg.token)}"]`)) el.removeAttribute(UPLOAD_MARK);
    return { files: 0 };
  }

  // ------------------------------------------------------------------ select_text

  /** Text nodes under an element in document order, with the visible ones only. */
  function textNodes(/** @type {Element} */ el) {
    /** @type {Text[]} */
    const nodes = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => {
        const parent = n.parentElement;
        if (!parent || parent.closest("script, style, noscript, template")) return NodeFilter.FILTER_REJECT;
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(/** @type {Text} */ (n));
    return nodes;
  }

  /**
   * The element's text with runs of white space collapsed to one space, and for each character
   * of it the text node and offset it came from (so a match maps back to a DOM range).
   * @param {Text[]} nodes
   */
  function collapsedText(nodes) {
    let text = "";
    /** @type {[Text, number][]} */
    const at = [];
    let space = true; // a leading space is dropped
    for (const node of nodes) {
      const data = node.data;
      for (let i = 0; i < data.length; i++) {
        if (/\s/.test(data[i])) {
          if (space) continue;
          space = true;
          text += " ";
        } else {
          space = false;
          text += data[i];
        }
        at.push([node, i]);
      }
    }
    return { text, at };
  }

  /** Where `wanted` first occurs in `text`: exactly, else ignoring case; -1 if nowhere. */
  function findText(/** @type {string} */ text, /** @type {string} */ wanted) {
    const exact = text.indexOf(wanted);
    return exact >= 0 ? exact : text.toLowerCase().indexOf(wanted.toLowerCase());
  }

  /** @param {string} s */
  const collapse = (s) => s.replace(/\s+/g, " ").trim();

  /**
   * Select `text` inside the element: a range across its text nodes, or setSelectionRange in a
   * text field. White space in the page and in the wanted text need not match exactly.
   * @param {{localRef?: number, text: string, scroll?: boolean}} msg  without a ref: the document's body
   */
  function selectText(msg) {
    const el = msg.localRef ? resolve(msg.localRef) : document.body;
    const wanted = collapse(msg.text);
    if (!wanted) throw new ActError("bad_action", "select_text needs some text to select");
    if (msg.scroll !== false) el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    if (!isVisible(el)) throw new ActError("not_visible", `${describe(el)} is not visible (hidden or zero-size)`);
    if (el instanceof HTMLInputElement && el.type === "password") throw new ActError("not_editable", "text in a password field cannot be selected");
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      const value = el.value;
      const length = msg.text.length;
      const start = findText(value, msg.text);
      if (start < 0) throw new ActError("no_such_text", `${describe(el)} does not contain ${JSON.stringify(msg.text.slice(0, 100))}`);
      el.focus({ preventScroll: true });
      try {
        el.setSelectionRange(start, start + length);
      } catch {
        throw new ActError("not_editable", `${describe(el)} (an ${el.type} field) has no text selection`);
      }
      return { selected: value.slice(start, start + length), field: true };
    }
    const { text, at } = collapsedText(textNodes(el));
    const start = findText(text, wanted);
    if (start < 0) {
      throw new ActError("no_such_text", `${describe(el)} does not contain ${JSON.stringify(wanted.slice(0, 100))}; its text begins ${JSON.stringify(text.slice(0, 120))}`);
    }
    const [startNode, startOffset] = at[start];
    const [endNode, endOffset] = at[start + wanted.length - 1];
    const range = document.createRange();
    range.setStart(startNode, startOffset);
    range.setEnd(endNode, endOffset + 1);
    if (el instanceof HTMLElement && el.isContentEditable) el.focus({ preventScroll: true });
    const selection = /** @type {Selection} */ (getSelection());
    selection.removeAllRanges();
    selection.addRange(range);
    return { selected: text.slice(start, start + wanted.length), field: false };
  }

  // ------------------------------------------------------------------ clipboard

  /** The focused text field, if the focus is in one. */
  function focusedField() {
    const el = deepActiveElement();
    return el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ? el : null;
  }

  /**
   * What a copy would take in this frame: the selected part of the focused field, else the
   * document's selection. A password field is never copied (as browsers refuse to).
   */
  function readSelection() {
    const field = focusedField();
    const focused = document.hasFocus();
    if (field && field.selectionStart !== null && field.selectionEnd !== null && field.selectionEnd > field.selectionStart) {
      if (field.type === "password") return { text: "", focused, editable: true, password: true };
      return { text: field.value.slice(field.selectionStart, field.selectionEnd), focused, editable: !field.readOnly && !field.disabled };
    }
    const selection = getSelection();
    const text = selection && selection.rangeCount ? selection.toString() : "";
    const anchor = selection?.anchorNode;
    const host = anchor instanceof Element ? anchor : anchor?.parentElement;
    return { text, focused, editable: Boolean(host && host instanceof HTMLElement && host.isContentEditable) };
  }

  /**
   * Edit at the selection as the browser's own editing commands do (trusted input events):
   * `delete` removes the selection (cut), `insert` types text over it (paste without the debugger).
   * @param {{op: "delete"|"insert", text?: string}} msg
   */
  function editSelection(msg) {
    const field = focusedField();
    const ok = msg.op === "delete" ? document.execCommand("delete") : document.execCommand("insertText", false, msg.text || "");
    if (ok) return { edited: true };
    if (field && msg.op === "insert") {
      // A field the editing commands do not reach: write the value and fire the events typing fires.
      const start = field.selectionStart ?? field.value.length, end = field.selectionEnd ?? start;
      setNativeValue(field, field.value.slice(0, start) + (msg.text || "") + field.value.slice(end));
      field.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType: "insertFromPaste", data: msg.text || "" }));
      return { edited: true };
    }
    const target = deepActiveElement();
    return { edited: false, target: describe(target) };
  }

  // ------------------------------------------------------------------ custom select

  /** Roles of the items a custom dropdown offers. */
  const OPTION_SELECTOR = '[role="option"], [role="menuitem"], [role="menuitemradio"], [role="treeitem"], [role="gridcell"]';
  /** Items of dropdowns built without ARIA (a list under a button, common in UI kits). */
  const PLAIN_ITEM_SELECTOR = "li, [data-value], .dropdown-item, .item, .option";

  /** The accessible name of an option: aria-label, aria-labelledby, else its visible text. */
  function optionName(/** @type {Element} */ el) {
    const label = el.getAttribute("aria-label");
    if (label && label.trim()) return collapse(label);
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const text = by.split(/\s+/).map((id) => document.getElementById(id)?.textContent || "").join(" ");
      if (collapse(text)) return collapse(text);
    }
    return collapse(/** @type {HTMLElement} */ (el).innerText || el.textContent || "");
  }

  /** Elements named by an attribute's id list (aria-controls, aria-owns). */
  function referenced(/** @type {Element} */ el, /** @type {string} */ attr) {
    return (el.getAttribute(attr) || "").split(/\s+/).filter(Boolean).map((id) => document.getElementById(id)).filter((e) => e !== null);
  }

  /**
   * The visible options of the widget a ref stands for: in the popups its ARIA attributes (or
   * those of a combobox input inside it) point to, inside it, beside it (a div dropdown's menu is
   * its sibling), and else in any open listbox of the page (a popup rendered at the body's end).
   * @param {Element} el @param {Set<Element>|null} shownBefore  popups shown before the click (none: not clicked yet)
   * @returns {Element[]}
   */
  function visibleOptions(el, shownBefore) {
    const owners = [el, ...el.querySelectorAll("[aria-controls], [aria-owns]")];
    const popups = owners.flatMap((o) => [...referenced(o, "aria-controls"), ...referenced(o, "aria-owns")]);
    const container = el.closest('[role="combobox"], [role="listbox"]');
    /** @type {Element[]} */
    const scopes = [...popups, el, ...(container && container !== el ? [container] : [])];
    const found = (/** @type {string} */ selector) => {
      const seen = new Set();
      for (const scope of scopes) for (const o of [scope, ...scope.querySelectorAll(selector)]) if (o !== el && o.matches(selector) && isVisible(o)) seen.add(o);
      return [...seen];
    };
    let options = found(OPTION_SELECTOR);
    if (!options.length && el.parentElement) {
      scopes.push(el.parentElement);
      options = found(OPTION_SELECTOR);
      if (!options.length) options = found(PLAIN_ITEM_SELECTOR).filter((o) => !o.contains(el) && !o.querySelector(PLAIN_ITEM_SELECTOR));
    }
    if (!options.length && shownBefore) {
      // A popup rendered elsewhere (at the body's end): a listbox or menu the click made appear.
      const open = openPopups().filter((box) => !shownBefore.has(box));
      options = open.flatMap((box) => [...box.querySelectorAll(OPTION_SELECTOR)].filter(isVisible));
    }
    return options;
  }

  function openPopups() {
    return [...document.querySelectorAll('[role="listbox"], [role="menu"]')].filter(isVisible);
  }

  /** The popups shown before the widget (by local ref) was clicked open. @type {Map<number, Set<Element>>} */
  const popupsBefore = new Map();

  /**
   * Find the option of a custom dropdown named `value` among the options now shown. Answers the
   * option's local ref for the service worker to click (and whether it is already chosen),
   * `open: true` when no option is shown yet (the widget must be clicked open first), or fails
   * as `no_such_option` naming the options there are.
   * @param {{localRef: number, value: string, clicked?: boolean, last?: boolean}} msg
   *   clicked: the service worker has clicked the widget open; last: the final look after that
   */
  function findOption(msg) {
    const el = resolve(msg.localRef);
    if (!msg.clicked) popupsBefore.set(msg.localRef, new Set(openPopups()));
    const options = visibleOptions(el, msg.clicked ? popupsBefore.get(msg.localRef) || new Set() : null);
    if (!options.length) {
      if (!msg.last) return { open: true };
      popupsBefore.delete(msg.localRef);
      throw new ActError("no_such_option", `${describe(el)} showed no options to choose from when clicked`, { options: [] });
    }
    const wanted = collapse(msg.value);
    const names = options.map(optionName);
    let index = names.findIndex((n) => n === wanted);
    if (index < 0) index = names.findIndex((n) => n.toLowerCase() === wanted.toLowerCase());
    if (index < 0) index = options.findIndex((o) => (o.getAttribute("data-value") ?? o.getAttribute("value")) === msg.value);
    // A widget that says it is collapsed shows only its chosen item (Choices.js): the others are
    // in the popup it opens, so it is clicked open before the option is said to be missing.
    if (index < 0 && !msg.clicked && el.getAttribute("aria-expanded") === "false") return { open: true };
    popupsBefore.delete(msg.localRef);
    if (index < 0) {
      const listed = names.filter(Boolean).slice(0, 30);
      throw new ActError("no_such_option", `${describe(el)} has no option named ${JSON.stringify(msg.value)}; its options: ${listed.map((n) => JSON.stringify(n)).join(", ")}`, { options: listed });
    }
    const option = options[index];
    if (isDisabled(option)) throw new ActError("disabled", `option ${JSON.stringify(names[index])} is disabled`);
    return { open: false, option_local_ref: core.refFor(option), label: names[index], already: option.getAttribute("aria-selected") === "true" };
  }

  /**
   * What the page has done since the service worker started watching a widget, just before it
   * pressed one of its options: by the widget's local ref.
   * @type {Map<number, {option: Element, value: string, changed: boolean, observer: MutationObserver}>}
   */
  const watches = new Map();

  /** The value a widget shows in a field: its own, or that of the inputs inside it. */
  function fieldValues(/** @type {Element} */ el) {
    const fields = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ? [el] : [...el.querySelectorAll("input, textarea")];
    return fields.map((f) => /** @type {HTMLInputElement} */ (f).value).join("\n");
  }

  /**
   * Start watching a widget and the option about to be pressed (after the pointer has moved
   * there, so a hover highlight is not taken for the choice): any change to either's subtree (the
   * option's list included) and to the widget's field value.
   * @param {{localRef: number, option: number}} msg
   */
  function watchOption(msg) {
    const el = resolve(msg.localRef);
    const option = resolve(msg.option);
    watches.get(msg.localRef)?.observer.disconnect();
    const state = { option, value: fieldValues(el), changed: false, observer: new MutationObserver(() => {
      state.changed = true;
      state.observer.disconnect();
    }) };
    for (const node of new Set([el, option.parentElement || option])) {
      state.observer.observe(node, { subtree: true, childList: true, attributes: true, characterData: true });
    }
    watches.set(msg.localRef, state);
    return { watching: true };
  }

  /**
   * Whether the widget took the option pressed since watchOption, and the sign it gave: the
   * option is marked chosen, went away (the popup closed), the widget or the option's list
   * changed, the widget's field shows a new value, or the widget itself was replaced; null while
   * there is no sign. The watch ends with a sign or with the `last` look.
   * @param {{localRef: number, last?: boolean}} msg
   */
  function optionTaken(msg) {
    const state = watches.get(msg.localRef);
    if (!state) throw new ActError("bad_action", "no option press is being watched on this widget");
    const el = core.elementFor(msg.localRef);
    const { option } = state;
    const sign = !el ? "replaced"
      : option.getAttribute("aria-selected") === "true" || option.getAttribute("aria-checked") === "true" ? "marked"
        : !option.isConnected || !isVisible(option) ? "closed"
          : fieldValues(el) !== state.value ? "value"
            : state.changed ? "changed" : null;
    if (sign || msg.last) {
      state.observer.disconnect();
      watches.delete(msg.localRef);
    }
    return { taken: sign };
  }

  core.handle(KIND.ACT_UPLOAD_TARGET, uploadTarget);
  core.handle(KIND.ACT_UPLOAD_DONE, uploadDone);
  core.handle(KIND.ACT_SELECT_TEXT, selectText);
  core.handle(KIND.ACT_READ_SELECTION, readSelection);
  core.handle(KIND.ACT_EDIT_SELECTION, editSelection);
  core.handle(KIND.ACT_FIND_OPTION, findOption);
  core.handle(KIND.ACT_OPTION_WATCH, watchOption);
  core.handle(KIND.ACT_OPTION_TAKEN, optionTaken);
})();
