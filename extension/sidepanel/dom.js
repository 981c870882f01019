// @ts-check
/**
 * Building DOM nodes without HTML strings: every piece of text becomes a text node, so nothing
 * from a model, a page or the host is ever parsed as markup.
 */

/** @typedef {string|number|Node|null|undefined|false} Child */

/**
 * Create an element. `props`: `class`, `text`, `dataset`, `on<event>` handlers, boolean
 * `hidden`/`disabled`/`checked`, `value`, and any other key as an attribute.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>=} props
 * @param {...(Child|Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = String(value);
    else if (key === "text") el.textContent = String(value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else if (key === "value" || key === "checked" || key === "disabled" || key === "hidden") Object.assign(el, { [key]: value });
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

/** @param {Node} parent @param {(Child|Child[])[]} children */
export function append(parent, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** @param {string} id @returns {HTMLElement} */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el;
}

/** @param {Element} el */
export function clear(el) {
  el.replaceChildren();
}

/** @param {number} ms */
export function formatMs(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
}
