// @ts-check
/**
 * Types the isolated-world content scripts (content/) share. They are classic scripts and
 * cannot import, but their JSDoc can: this module holds only types and is never loaded.
 *
 * A message from the service worker: its `kind` (shared/actions.js KIND), the document it was
 * meant for, and the handler's own fields.
 * @typedef {{kind: string, docId?: string} & Record<string, unknown>} ContentMessage
 *
 * The core every frame's content scripts register on (content/core.js): refs for elements, and
 * one handler per message kind. Each script marks itself loaded, so injecting again is a no-op.
 * @typedef {Object} ContentCore
 * @property {string} docId  a random identity of this document instance
 * @property {(el: Element) => number} refFor
 * @property {(ref: number) => Element|null} elementFor  the live element, or null once removed
 * @property {(el: Element) => number|undefined} refIfAny  the element's ref if it has one, never issuing a new one
 * @property {() => void} sweep
 * @property {() => number[]} takeDropped
 * @property {() => number} registrySize
 * @property {() => number} frameIndex
 * @property {<M extends ContentMessage>(kind: string, fn: (msg: M) => unknown) => void} handle
 * @property {NameCache=} names  names from earlier snapshots (content/name_cache.js)
 * @property {boolean=} snapshotReady  content/snapshot.js is loaded
 * @property {boolean=} actionsLoaded  content/actions.js is loaded
 *
 * Names of elements read by earlier snapshots of this document, dropped when what they were read from changes.
 * @typedef {Object} NameCache
 * @property {() => void} begin  apply pending changes before a walk
 * @property {(root: Document|ShadowRoot) => void} watch
 * @property {(el: Element) => string|undefined} get
 * @property {(el: Element, name: string) => void} set
 * @property {() => void} sweep  forget elements no longer in the document
 * @property {() => number} size
 *
 * The isolated world's global, with what the content scripts put on it.
 * @typedef {typeof globalThis & {__waymark?: ContentCore, __waymarkKinds?: typeof import("../shared/actions.js").KIND}} ContentGlobal
 */

export {};
