// The US keyboard and the keystrokes that type a text: what goes by key and what is inserted.
import assert from "node:assert/strict";
import { test } from "node:test";
import { KEYED_CHARS_MAX, keystrokes, layoutKey } from "../../extension/sw/keyboard.js";

test("a capital letter is its letter's key with the capital as its text, as Playwright's layout has it", () => {
  assert.deepEqual(layoutKey("T"), { key: "T", code: "KeyT", keyCode: 84, text: "T", location: 0 });
});

test("punctuation carries its key's code and virtual key code", () => {
  assert.deepEqual(layoutKey("!"), { key: "!", code: "Digit1", keyCode: 49, text: "!", location: 0 });
  assert.equal(layoutKey(",")?.keyCode, 188);
});

test("named keys are found whatever their case; either Shift has the location-free code 16", () => {
  assert.equal(layoutKey("pagedown")?.code, "PageDown");
  assert.equal(layoutKey("Shift")?.keyCode, 16);
});

test("a character no key of the layout types is not a key", () => {
  assert.equal(layoutKey("é"), null);
});

test("letters go by key and each run of characters no key types is one insertion", () => {
  assert.deepEqual(keystrokes("aé👋🏽b", { multiline: false }).map((s) => ("insert" in s ? { insert: s.insert } : s.key.key)),
    ["a", { insert: "é👋🏽" }, "b"]);
});

test("a line break is the Enter key where it makes a new line and a space in a one-line field", () => {
  assert.equal(keystrokes("a\r\nb", { multiline: true })[1].key?.key, "Enter");
  assert.deepEqual(keystrokes("a\nb", { multiline: false }).map((s) => s.key?.key), ["a", " ", "b"]);
});

test("a text past the keyed length is inserted but for its last character, which goes by key", () => {
  const text = "x".repeat(KEYED_CHARS_MAX) + "yz";
  const strokes = keystrokes(text, { multiline: false });
  assert.equal(strokes.length, 2);
  assert.deepEqual(strokes[0], { insert: text.slice(0, -1) });
  assert.equal(strokes[1].key?.key, "z");
});
