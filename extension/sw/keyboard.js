// @ts-check
/**
 * The US keyboard: which key a person presses for each character and named key, and the plan of
 * keystrokes that types a text. The table is Playwright's own (playwright-core
 * src/server/usKeyboardLayout.ts, Apache-2.0), folded as its buildLayoutClosure folds it, so a key
 * we send carries the key, code and keyCode Playwright's `keyboard.type` sends in the same Chromium.
 */

/**
 * @typedef {{keyCode: number, key: string, shiftKey?: string, shiftKeyCode?: number, keyCodeWithoutLocation?: number, text?: string, location?: number}} KeyDefinition
 * @typedef {{key: string, code: string, keyCode: number, text?: string, location?: number}} KeyDef
 *   keyCode: the location-free virtual key code CDP's windowsVirtualKeyCode takes (16 for either Shift)
 * @typedef {{key: KeyDef}|{insert: string}} Stroke  a key to press, or text no key types (IME-style commit)
 */

/** @type {Record<string, KeyDefinition>} */
const US_LAYOUT = {
  Escape: { keyCode: 27, key: "Escape" },
  F1: { keyCode: 112, key: "F1" }, F2: { keyCode: 113, key: "F2" }, F3: { keyCode: 114, key: "F3" },
  F4: { keyCode: 115, key: "F4" }, F5: { keyCode: 116, key: "F5" }, F6: { keyCode: 117, key: "F6" },
  F7: { keyCode: 118, key: "F7" }, F8: { keyCode: 119, key: "F8" }, F9: { keyCode: 120, key: "F9" },
  F10: { keyCode: 121, key: "F10" }, F11: { keyCode: 122, key: "F11" }, F12: { keyCode: 123, key: "F12" },
  Backquote: { keyCode: 192, shiftKey: "~", key: "`" },
  Digit1: { keyCode: 49, shiftKey: "!", key: "1" }, Digit2: { keyCode: 50, shiftKey: "@", key: "2" },
  Digit3: { keyCode: 51, shiftKey: "#", key: "3" }, Digit4: { keyCode: 52, shiftKey: "$", key: "4" },
  Digit5: { keyCode: 53, shiftKey: "%", key: "5" }, Digit6: { keyCode: 54, shiftKey: "^", key: "6" },
  Digit7: { keyCode: 55, shiftKey: "&", key: "7" }, Digit8: { keyCode: 56, shiftKey: "*", key: "8" },
  Digit9: { keyCode: 57, shiftKey: "(", key: "9" }, Digit0: { keyCode: 48, shiftKey: ")", key: "0" },
  Minus: { keyCode: 189, shiftKey: "_", key: "-" }, Equal: { keyCode: 187, shiftKey: "+", key: "=" },
  Backslash: { keyCode: 220, shiftKey: "|", key: "\\" }, Backspace: { keyCode: 8, key: "Backspace" },
  Tab: { keyCode: 9, key: "Tab" },
  KeyQ: { keyCode: 81, shiftKey: "Q", key: "q" }, KeyW: { keyCode: 87, shiftKey: "W", key: "w" },
  KeyE: { keyCode: 69, shiftKey: "E", key: "e" }, KeyR: { keyCode: 82, shiftKey: "R", key: "r" },
  KeyT: { keyCode: 84, shiftKey: "T", key: "t" }, KeyY: { keyCode: 89, shiftKey: "Y", key: "y" },
  KeyU: { keyCode: 85, shiftKey: "U", key: "u" }, KeyI: { keyCode: 73, shiftKey: "I", key: "i" },
  KeyO: { keyCode: 79, shiftKey: "O", key: "o" }, KeyP: { keyCode: 80, shiftKey: "P", key: "p" },
  BracketLeft: { keyCode: 219, shiftKey: "{", key: "[" }, BracketRight: { keyCode: 221, shiftKey: "}", key: "]" },
  CapsLock: { keyCode: 20, key: "CapsLock" },
  KeyA: { keyCode: 65, shiftKey: "A", key: "a" }, KeyS: { keyCode: 83, shiftKey: "S", key: "s" },
  KeyD: { keyCode: 68, shiftKey: "D", key: "d" }, KeyF: { keyCode: 70, shiftKey: "F", key: "f" },
  KeyG: { keyCode: 71, shiftKey: "G", key: "g" }, KeyH: { keyCode: 72, shiftKey: "H", key: "h" },
  KeyJ: { keyCode: 74, shiftKey: "J", key: "j" }, KeyK: { keyCode: 75, shiftKey: "K", key: "k" },
  KeyL: { keyCode: 76, shiftKey: "L", key: "l" },
  Semicolon: { keyCode: 186, shiftKey: ":", key: ";" }, Quote: { keyCode: 222, shiftKey: '"', key: "'" },
  Enter: { keyCode: 13, key: "Enter", text: "\r" },
  ShiftLeft: { keyCode: 160, keyCodeWithoutLocation: 16, key: "Shift", location: 1 },
  KeyZ: { keyCode: 90, shiftKey: "Z", key: "z" }, KeyX: { keyCode: 88, shiftKey: "X", key: "x" },
  KeyC: { keyCode: 67, shiftKey: "C", key: "c" }, KeyV: { keyCode: 86, shiftKey: "V", key: "v" },
  KeyB: { keyCode: 66, shiftKey: "B", key: "b" }, KeyN: { keyCode: 78, shiftKey: "N", key: "n" },
  KeyM: { keyCode: 77, shiftKey: "M", key: "m" },
  Comma: { keyCode: 188, shiftKey: "<", key: "," }, Period: { keyCode: 190, shiftKey: ">", key: "." },
  Slash: { keyCode: 191, shiftKey: "?", key: "/" },
  ShiftRight: { keyCode: 161, keyCodeWithoutLocation: 16, key: "Shift", location: 2 },
  ControlLeft: { keyCode: 162, keyCodeWithoutLocation: 17, key: "Control", location: 1 },
  MetaLeft: { keyCode: 91, key: "Meta", location: 1 },
  AltLeft: { keyCode: 164, keyCodeWithoutLocation: 18, key: "Alt", location: 1 },
  Space: { keyCode: 32, key: " " },
  AltRight: { keyCode: 165, keyCodeWithoutLocation: 18, key: "Alt", location: 2 },
  AltGraph: { keyCode: 225, key: "AltGraph" },
  MetaRight: { keyCode: 92, key: "Meta", location: 2 },
  ContextMenu: { keyCode: 93, key: "ContextMenu" },
  ControlRight: { keyCode: 163, keyCodeWithoutLocation: 17, key: "Control", location: 2 },
  PrintScreen: { keyCode: 44, key: "PrintScreen" }, ScrollLock: { keyCode: 145, key: "ScrollLock" },
  Pause: { keyCode: 19, key: "Pause" }, PageUp: { keyCode: 33, key: "PageUp" }, PageDown: { keyCode: 34, key: "PageDown" },
  Insert: { keyCode: 45, key: "Insert" }, Delete: { keyCode: 46, key: "Delete" },
  Home: { keyCode: 36, key: "Home" }, End: { keyCode: 35, key: "End" },
  ArrowLeft: { keyCode: 37, key: "ArrowLeft" }, ArrowUp: { keyCode: 38, key: "ArrowUp" },
  ArrowRight: { keyCode: 39, key: "ArrowRight" }, ArrowDown: { keyCode: 40, key: "ArrowDown" },
};

/** Names Playwright also accepts for a code: the left modifier keys by their bare names, Enter by its characters. */
const CODE_ALIASES = { ShiftLeft: ["Shift"], ControlLeft: ["Control"], AltLeft: ["Alt"], MetaLeft: ["Meta"], Enter: ["\n", "\r"] };

/** @typedef {KeyDef & {shifted?: KeyDef}} KeyEntry */

/**
 * Every code, every alias and every character the layout types, to its key (buildLayoutClosure).
 * @returns {Map<string, KeyEntry>}
 */
function buildLayout() {
  /** @type {Map<string, KeyEntry>} */
  const layout = new Map();
  for (const [code, d] of Object.entries(US_LAYOUT)) {
    /** @type {KeyDef} */
    const plain = { key: d.key, code, keyCode: d.keyCodeWithoutLocation || d.keyCode, location: d.location || 0 };
    const text = d.key.length === 1 ? d.key : d.text;
    if (text) plain.text = text;
    const shifted = d.shiftKey ? { ...plain, key: d.shiftKey, text: d.shiftKey, keyCode: d.shiftKeyCode || plain.keyCode } : undefined;
    layout.set(code, { ...plain, shifted });
    for (const alias of CODE_ALIASES[/** @type {keyof typeof CODE_ALIASES} */ (code)] || []) layout.set(alias, plain);
    if (d.location) continue;
    if (d.key.length === 1) layout.set(d.key, plain);
    if (shifted) layout.set(shifted.key, shifted);
  }
  return layout;
}

const LAYOUT = buildLayout();

/**
 * The key of a code ("KeyA"), a key name ("Enter", case forgiven: "pagedown") or a character the
 * layout types ("a", "A", "!"); null for anything else.
 * @param {string} name @returns {KeyEntry|null}
 */
export function layoutKey(name) {
  const exact = LAYOUT.get(name);
  if (exact) return exact;
  if (name.length < 2) return null;
  const lower = name.toLowerCase();
  for (const [id, entry] of LAYOUT) if (id.length > 1 && id.toLowerCase() === lower) return entry;
  return null;
}

/**
 * Texts longer than this many characters are inserted at once but for their last character, which
 * is typed by key: key by key they would take seconds (docs/dispatch.md has the measured cost per
 * character), and a page that listens for keys still sees one keydown/keyup with the whole value
 * in the field. Only a page that counts every key of a long text sees fewer.
 */
export const KEYED_CHARS_MAX = 500;

/**
 * The keystrokes that type `text`: a key press for each character of the layout, as Playwright's
 * `keyboard.type` does, and one insertion (as an IME commits) for each run of characters no key
 * of the layout types (emoji, accented letters, other scripts). A line break is the Enter key
 * where it makes a new line (`multiline`) and a space in a one-line field.
 * @param {string} text @param {{multiline: boolean}} field
 * @returns {Stroke[]}
 */
export function keystrokes(text, field) {
  /** @type {Stroke[]} */
  const strokes = [];
  const chars = [...text.replace(/\r\n/g, "\n")];
  if (chars.length > KEYED_CHARS_MAX) {
    // See KEYED_CHARS_MAX: the bulk as one insertion, the last character by key.
    strokes.push({ insert: chars.slice(0, -1).join("") });
    chars.splice(0, chars.length - 1);
  }
  for (const typed of chars) {
    // A one-line field holds no line break: Chrome makes one a space when it inserts such text,
    // and the Enter key (or a line break inserted alone) would submit the field's form.
    const char = typed === "\n" && !field.multiline ? " " : typed;
    const key = LAYOUT.get(char);
    const last = strokes[strokes.length - 1];
    if (key) strokes.push({ key: { key: key.key, code: key.code, keyCode: key.keyCode, text: key.text, location: key.location } });
    else if (last && "insert" in last) last.insert += char;
    else strokes.push({ insert: char });
  }
  return strokes;
}
