// @ts-check
/**
 * Global refs: the numbers the model sees. Each frame numbers its own elements; this table
 * maps (frame, document, local ref) to one number per tab, stable for the element's life.
 * A ref whose frame navigated (new document) or whose element is gone is stale, never reused
 * within its generation. When every document of the tab is gone (the tab went to another page)
 * numbering starts again at 1 in a new generation, so refs stay short; an act request that
 * names the generation its ref was read in finds a ref of an earlier one stale.
 */

/** @typedef {{frameId: number, docId: string, localRef: number}} RefTarget */

/**
 * next: the next number of this generation; issued: one past the highest number any generation gave.
 * @type {Map<number, {generation: number, next: number, issued: number, byKey: Map<string, number>, byRef: Map<number, RefTarget>}>}
 */
const tables = new Map();

/** @param {number} tabId */
function table(tabId) {
  let t = tables.get(tabId);
  if (!t) {
    t = { generation: 1, next: 1, issued: 1, byKey: new Map(), byRef: new Map() };
    tables.set(tabId, t);
  }
  return t;
}

/** @param {number} tabId @returns {number} the generation of the tab's refs (1 for a tab never snapshotted) */
export function refGeneration(tabId) {
  return tables.get(tabId)?.generation ?? 1;
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
    t.issued = Math.max(t.issued, t.next);
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
 * Forget the refs of documents that no longer exist in a tab (called with the live documents
 * a snapshot found, before it gives refs), so the table does not grow without bound. When none
 * of the tab's refs is left because their documents went, a new generation starts numbering at 1.
 * @param {number} tabId @param {Set<string>} liveDocIds
 */
export function forgetDeadDocuments(tabId, liveDocIds) {
  const t = tables.get(tabId);
  if (!t) return;
  let gone = false;
  for (const [ref, target] of t.byRef) {
    if (!liveDocIds.has(target.docId)) {
      t.byRef.delete(ref);
      t.byKey.delete(`${target.frameId}|${target.docId}|${target.localRef}`);
      gone = true;
    }
  }
  // Only a tab whose documents all went starts again: within a document a number is never reused.
  if (gone && t.byRef.size === 0) {
    t.generation++;
    t.next = 1;
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
  return t !== undefined && Number.isInteger(ref) && ref >= 1 && ref < t.issued;
}

/**
 * Whether a ref read in `generation` (an act request's `ref_generation`) belongs to an earlier
 * page of the tab than its refs now do; an unknown generation (null) is taken as current.
 * @param {number} tabId @param {number|null|undefined} generation
 */
export function fromEarlierGeneration(tabId, generation) {
  return generation !== null && generation !== undefined && generation !== refGeneration(tabId);
}
