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
 * @property {() => string} randomId  a random hex token (crypto.randomUUID exists only in secure contexts, not on plain-http pages)
 * @property {(el: Element) => number} refFor
 * @property {(ref: number) => Element|null} elementFor  the live element, or null once removed
 * @property {(el: Element) => number|undefined} refIfAny  the element's ref if it has one, never issuing a new one
 * @property {() => void} sweep
 * @property {() => number[]} takeDropped
 * @property {() => number} registrySize
 * @property {() => number} frameIndex
 * @property {<M>(kind: string, fn: (msg: M) => unknown) => void} handle  each handler declares the message it is sent
 * @property {NameCache=} names  names from earlier snapshots (content/name_cache.js)
 * @property {boolean=} snapshotReady  content/snapshot.js is loaded
 * @property {boolean=} actionsLoaded  content/actions.js is loaded
 * @property {boolean=} pointerLoaded  content/pointer.js is loaded
 * @property {boolean=} formsLoaded  content/forms.js is loaded
 * @property {((el: Element) => boolean)=} typedSecret  a secret was typed into this field (content/secret_fields.js)
 * @property {((el: Element) => {role: string, name: string}|null)=} roleName  the role and name a snapshot gives an operable element (content/snapshot.js)
 * @property {boolean=} recorderLoaded  content/recorder.js is loaded
 * @property {PointerKit=} pointer  what content/actions.js lends content/pointer.js
 * @property {ActKit=} act  what content/actions.js lends content/forms.js
 *
 * A typed failure of an action in the page: the service worker turns its code into the error.
 * @typedef {Error & {code: string, data?: Record<string, unknown>}} ActErrorLike
 * @typedef {new (code: string, message: string, data?: Record<string, unknown>) => ActErrorLike} ActErrorClass
 *
 * @typedef {Object} PointerKit
 * @property {ActErrorClass} ActError
 * @property {(ref: number) => Element} resolve
 * @property {(el: Element) => string} describe
 * @property {(x: number, y: number) => Element|null} deepElementFromPoint
 * @property {(node: Node) => (Node & ParentNode)|null} composedParent
 * @property {(el: Element, x: number, y: number, clickCount?: number) => void} syntheticClick
 * @property {(from: Node, vertical: boolean) => Element|null} scrollableFrom
 *
 * @typedef {Object} ActKit
 * @property {ActErrorClass} ActError
 * @property {(ref: number) => Element} resolve
 * @property {(el: Element) => string} describe
 * @property {(el: Element) => boolean} isVisible
 * @property {(el: Element) => boolean} isDisabled
 * @property {() => Element} deepActiveElement
 * @property {(el: HTMLInputElement|HTMLTextAreaElement|HTMLSelectElement, value: string) => void} setNativeValue
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

/**
 * One action a user made, as a frame's recorder reports it to the service worker (content/recorder.js):
 * its element by role and accessible name, and by the ref a snapshot gave it, if any.
 * An `answer` is what the user marked as the answer to read: its `text` as the page shows it.
 * @typedef {{action: "click"|"fill"|"select"|"press"|"answer", role: string, name: string, local_ref: number|null,
 *   doc_id: string, value?: string, key?: string, secret?: boolean, text?: string, box: number[]}} RecordedAction
 */

export {};
