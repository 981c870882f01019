// @ts-check
/**
 * The page's `alert`, `confirm` and `prompt`, answered without blocking while no debugger
 * answers them.
 *
 * Runs in the page's own world (manifest content script, world MAIN) at document_start in every
 * frame, before the page's scripts. A native dialog opened while the extension's debugger is not
 * attached (a page loading, a timer long after the last action) blocks the page until someone
 * closes it, and attaching later does not help: Chrome reports no dialog that opened before
 * `Page.enable`, and `Page.enable` itself waits for the blocked page. So until the service worker
 * says the debugger owns this tab's dialogs (sw/dialogs.js, when it attaches), this script
 * answers them: an alert is closed, a confirm is answered Cancel and a prompt cancelled, so
 * nothing is accepted unseen. Each answer is recorded for the service worker to collect and show
 * the model. While the debugger owns them the native dialogs open as usual and the debugger holds
 * or answers them (sw/cdp.js).
 *
 * The page can reach the handle below as it can reach its own dialogs: at most it can answer its
 * own dialogs differently or block itself, both of which it can do anyway.
 */
(() => {
  const HANDLE = Symbol.for("waymark.dialogs");
  const g = /** @type {typeof globalThis & Record<symbol, unknown>} */ (globalThis);
  if (g[HANDLE]) return;
  /** Records kept until collected; a page looping on alert() keeps only the newest. */
  const KEEP = 20;
  const MESSAGE_CHARS = 500;
  const native = { alert: g.alert, confirm: g.confirm, prompt: g.prompt };
  let owned = false;
  /** @type {Array<Record<string, unknown>>} */
  let records = [];

  /** @param {string} type @param {unknown} message @param {"accept"|"dismiss"} handled @param {unknown=} defaultPrompt */
  const note = (type, message, handled, defaultPrompt) => {
    const record = { type, message: String(message ?? "").slice(0, MESSAGE_CHARS), url: location.href, handled, by: "page", at: Date.now() };
    if (defaultPrompt !== undefined) Object.assign(record, { default_prompt: String(defaultPrompt ?? "").slice(0, MESSAGE_CHARS) });
    records = records.concat([record]).slice(-KEEP);
  };

  g.alert = function alert(message) {
    if (owned) return native.alert.apply(this, arguments.length ? [message] : []);
    note("alert", arguments.length ? message : "", "accept");
    return undefined;
  };
  g.confirm = function confirm(message) {
    if (owned) return native.confirm.apply(this, arguments.length ? [message] : []);
    note("confirm", arguments.length ? message : "", "dismiss");
    return false;
  };
  g.prompt = function prompt(message, defaultValue) {
    if (owned) return native.prompt.apply(this, /** @type {[string?, string?]} */ ([...arguments]));
    note("prompt", arguments.length ? message : "", "dismiss", arguments.length > 1 ? defaultValue : "");
    return null;
  };

  Object.defineProperty(g, HANDLE, {
    value: Object.freeze({
      /** @param {boolean} on  the debugger answers this tab's dialogs from now on */
      own: (on) => { owned = Boolean(on); },
      /** The dialogs answered here since the last call. */
      take: () => { const taken = records; records = []; return taken; },
    }),
  });
})();
