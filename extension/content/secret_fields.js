// @ts-check
/**
 * The fields of this document a secret was typed into. The service worker marks a field (after
 * checking the frame's origin, extension/sw/secret_gate.js) before it types the secret, and from
 * then on the snapshot reports only that the field has a value, as it does for a password field,
 * and the overlay screenshot paints its box over.
 */
/** @typedef {import("../shared/content_types.js").ContentGlobal} ContentGlobal */
(() => {
  const g = /** @type {ContentGlobal} */ (globalThis);
  const core = g.__waymark;
  const KIND = g.__waymarkKinds;
  if (!core || !KIND || core.typedSecret) return;
  /** Weak: a field the page removes is forgotten with it. */
  /** @type {WeakSet<Element>} */
  const fields = new WeakSet();
  core.typedSecret = (el) => fields.has(el);
  core.handle(KIND.ACT_MARK_SECRET, (/** @type {{localRef: number}} */ msg) => {
    const el = core.elementFor(msg.localRef);
    if (!el) throw Object.assign(new Error("the field is gone from the page"), { code: "stale_ref" });
    fields.add(el);
    return { marked: true };
  });
})();
