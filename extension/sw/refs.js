// @ts-check
/**
 * Global refs: the numbers the model sees. Each frame numbers its own elements; this table
 * maps (frame, document, local ref) to one number per tab, stable for the element's life.
 * A ref whose frame navigated (new document) or whose element is gone is stale, never reused.
 */

/** @typedef {{frameId: number, docId: string, localRef: number}} RefTarget */

/** @type {Map<number, {next: number, byKey: Map<string, number>, byRef: Map<number, RefTarget>}>} */
const tables = new Map();

/** @param {number} tabId */
function table(tabId) {
  let t = tables.get(tabId);
  if (!t) {
    t = { next: 1, byKey: new Map(), byRef: new Map() };
    tables.set(tabId, t);
  }
  return t;
}

/**
 * The global ref for a frame-local ref, assigned on first sight.
 * @param {number} tabId @param {number} frameId @param {string} docId @param {number} localRef
 * @returns {number}
 */
export function globalRef(tabId, frameId, docId, localRef) {
  const t = table(tabId);
  const key = `${frameId}|${docId}|${localRef}`;
  let ref = t.byKey.get(key);
  if (ref === undefined) {
    ref = t.next++;
    t.byKey.set(key, ref);
    t.byRef.set(ref, { frameId, docId, localRef });
  }
  return ref;
}

/**
 * Where a global ref points, or null if this tab never issued it.
 * @param {number} tabId @param {number} ref
 * @returns {RefTarget|null}
 */
export function resolveRef(tabId, ref) {
  return tables.get(tabId)?.byRef.get(ref) ?? null;
}

/**
 * Forget the refs of documents that no longer exist in a tab (called after a snapshot
 * saw the live documents), so the table does not grow without bound.
 * @param {number} tabId @param {Set<string>} liveDocIds
 */
export function forgetDeadDocuments(tabId, liveDocIds) {
  const t = tables.get(tabId);
  if (!t) return;
  for (const [ref, target] of t.byRef) {
    if (!liveDocIds.has(target.docId)) {
      t.byRef.delete(ref);
      t.byKey.delete(`${target.frameId}|${target.docId}|${target.localRef}`);
    }
  }
}

/**
 * Forget refs whose elements a frame dropped from its registry (removed from the document).
 * They stay issued, so a later use of one is reported as stale, never as unknown.
 * @param {number} tabId @param {number} frameId @param {string} docId @param {number[]} localRefs
 */
export function forgetRefs(tabId, frameId, docId, localRefs) {
  const t = tables.get(tabId);
  if (!t) return;
  for (const localRef of localRefs) {
    const key = `${frameId}|${docId}|${localRef}`;
    const ref = t.byKey.get(key);
    if (ref === undefined) continue;
    t.byKey.delete(key);
    t.byRef.delete(ref);
  }
}

/** @param {number} tabId @returns {number} live entries of a tab's table (the memory benchmark reads this) */
export function tableSize(tabId) {
  return tables.get(tabId)?.byRef.size ?? 0;
}

chrome.tabs?.onRemoved.addListener((tabId) => tables.delete(tabId));

/**
 * True when this tab once issued `ref` (so a ref that no longer resolves is stale, not unknown).
 * @param {number} tabId @param {number} ref
 */
export function wasIssued(tabId, ref) {
  const t = tables.get(tabId);
  return t !== undefined && Number.isInteger(ref) && ref >= 1 && ref < t.next;
}
