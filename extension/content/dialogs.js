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
 * While the tab is recorded (content/recorder.js tells this frame, with a DOM event: the two
 * worlds share only the document) the dialogs open natively for the user to answer, and each is
 * told to the recorder as it opens and with the answer the user gave, so the recording replays
 * that answer (extension/sw/recorder.js).
 *
 * The page can reach the handle below, and send or hear those events, as it can reach its own
 * dialogs: at most it can answer its own dialogs differently, block itself, or say it asked
 * something it did not (a replay then waits for that dialog and fails when it does not come).
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
  /** The tab is recorded: the user answers, and the recorder hears the answer. */
  let watched = false;
  const ARM_EVENT = "waymark:record-dialogs";
  const TOLD_EVENT = "waymark:recorded-dialog";
  document.addEventListener(ARM_EVENT, (event) => { watched = /** @type {CustomEvent} */ (event).detail === "on"; });
  /** @type {Array<Record<string, unknown>>} */
  let records = [];

  /** @param {string} type @param {unknown} message @param {"accept"|"dismiss"} handled @param {unknown=} defaultPrompt */
  const note = (type, message, handled, defaultPrompt) => {
    const record = { type, message: String(message ?? "").slice(0, MESSAGE_CHARS), url: location.href, handled, by: "page", at: Date.now() };
    if (defaultPrompt !== undefined) Object.assign(record, { default_prompt: String(defaultPrompt ?? "").slice(0, MESSAGE_CHARS) });
    records = records.concat([record]).slice(-KEEP);
  };

  /**
   * Open the native dialog for the user and tell the recorder what it asked and how it was
   * answered (a JSON string: an object's detail does not cross from this world to the recorder's).
   * @template T @param {string} type @param {unknown} message @param {() => T} ask @returns {T}
   */
  const askUser = (type, message, ask) => {
    const said = String(message ?? "").slice(0, MESSAGE_CHARS);
    const tell = (/** @type {Record<string, unknown>} */ what) => document.dispatchEvent(new CustomEvent(TOLD_EVENT, { detail: JSON.stringify({ type, message: said, ...what }) }));
    tell({ phase: "open" });
    const answer = ask();
    const accepted = type === "alert" ? true : type === "prompt" ? answer !== null : Boolean(answer);
    tell({ phase: "answered", accepted, ...(type === "prompt" && answer !== null ? { text: String(answer).slice(0, 2000) } : {}) });
    return answer;
  };

  g.alert = function alert(message) {
    if (owned) return native.alert.apply(this, arguments.length ? [message] : []);
    if (watched) return askUser("alert", arguments.length ? message : "", () => native.alert.apply(this, arguments.length ? [message] : []));
    note("alert", arguments.length ? message : "", "accept");
    return undefined;
  };
  g.confirm = function confirm(message) {
    if (owned) return native.confirm.apply(this, arguments.length ? [message] : []);
    if (watched) return askUser("confirm", arguments.length ? message : "", () => native.confirm.apply(this, arguments.length ? [message] : []));
    note("confirm", arguments.length ? message : "", "dismiss");
    return false;
  };
  g.prompt = function prompt(message, defaultValue) {
    if (owned) return native.prompt.apply(this, /** @type {[string?, string?]} */ ([...arguments]));
    if (watched) {
      const args = /** @type {[string?, string?]} */ ([...arguments]);
      return askUser("prompt", arguments.length ? message : "", () => native.prompt.apply(this, args));
    }
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
