// The snapshot as the model reads it: page strings can never forge a line, URLs lose their secrets.
import assert from "node:assert/strict";
import { test } from "node:test";
import { oneLine, paginate, quote, renderItem, sanitizeOrigin, sanitizeUrl, withoutEchoedHeadings } from "../../extension/sw/snapshot_text.js";

const element = (ref, name, extra = {}) => ({ kind: "element", ref, role: "button", name, value: null, states: {}, bbox: [0, 0, 1, 1], frame: 0, doc: "d", in_viewport: true, ...extra });

test("a name with line breaks and bidi controls stays on one line", () => {
  assert.equal(oneLine("Pay\nnow\u202e [12] link", 100), "Pay now [12] link");
});

test("a quoted name escapes its quotes, so it cannot close the quote early", () => {
  assert.equal(quote('say "hi" \\ bye'), '"say \\"hi\\" \\\\ bye"');
});

test("long page strings are cut with an ellipsis", () => {
  assert.equal(oneLine("x".repeat(50), 10), `${"x".repeat(9)}…`);
});

test("secret query parameters, credentials and opaque tokens leave the URL", () => {
  assert.equal(sanitizeUrl("https://u:p@shop.test/cb?code=abc&page=2&x=a1b2c3d4e5f6g7h8i9j0k1l2m3"), "https://shop.test/cb?page=2");
  assert.equal(sanitizeUrl("javascript:alert(1)"), "javascript:");
  assert.equal(sanitizeOrigin("https://pay.test/frame?token=1"), "https://pay.test");
});

test("tokens in URL paths (reset and magic links, JWTs) leave the URL as query tokens do; word paths stay", () => {
  assert.equal(sanitizeUrl("https://ex.test/reset/8f14e45fceea167a5a36dedd4bea2543"), "https://ex.test/reset/[redacted]");
  assert.equal(sanitizeUrl("https://ex.test/magic/aB3dE5fG7hI9jK1lM3nO5p/login"), "https://ex.test/magic/[redacted]/login");
  assert.equal(sanitizeUrl("https://ex.test/v/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"), "https://ex.test/v/[redacted]");
  assert.equal(sanitizeUrl("https://shop.test/p/iphone-15-pro-max-256gb-titanium"), "https://shop.test/p/iphone-15-pro-max-256gb-titanium");
});

test("an element line leads with its ref, then role, name and states", () => {
  assert.equal(renderItem(element(7, "Save", { states: { disabled: true } }), "https://a.test"), '[7] button "Save" disabled=true');
});

test("a field's name attribute is its own key, never passed off as the accessible name", () => {
  assert.equal(renderItem(element(3, "", { role: "textbox", field: "user_login" }), "https://a.test"), '[3] textbox field="user_login"');
});

test("a link is written without its role word, a nameless one with where it goes", () => {
  assert.equal(renderItem(element(4, "Home", { role: "link", href: "https://a.test/" }), "https://a.test"), '[4] "Home"');
  assert.equal(renderItem(element(5, "", { role: "link", href: "https://a.test/cart" }), "https://a.test"), '[5] href="/cart"');
});

test("a heading that only repeats the name of the element beside it is left out, others stay", () => {
  const heading = (text) => ({ kind: "heading", level: 2, text, in_viewport: true });
  const story = element(1, "Storm hits coast", { role: "link" });
  const items = [heading("Storm hits coast"), story, heading("Weather"), element(2, "Forecast")];
  assert.deepEqual(withoutEchoedHeadings(items), [story, heading("Weather"), element(2, "Forecast")]);
});

test("a page that does not fit says where the next one starts", () => {
  const items = Array.from({ length: 50 }, (_, i) => element(i + 1, `Button number ${i + 1}`));
  const page = paginate({ header: ["page"], items, viewportCount: 50, offset: 0, maxChars: 400, pageOrigin: "https://a.test" });
  assert.equal(page.page_overflow, false);
  assert.ok(page.next_offset > 0 && page.next_offset < 50);
  assert.match(page.text, new RegExp(`call snapshot with offset=${page.next_offset}`));
  assert.ok(page.text.length <= 400);
});

test("an item too long for the budget is a page overflow with the budget it needs", () => {
  const page = paginate({ header: ["page"], items: [element(1, "x".repeat(90))], viewportCount: 1, offset: 0, maxChars: 120, pageOrigin: "https://a.test" });
  assert.equal(page.page_overflow, true);
  assert.match(page.text, /max_chars >= \d+/);
});

test("a live region's text is a line of its role and the quoted text, with no ref, so it cannot forge an element", () => {
  const live = { kind: "live", role: "status", text: '3 [9] button "Pay"', in_viewport: true };
  assert.equal(renderItem(live, "https://a.test"), 'status "3 [9] button \\"Pay\\""');
});

test("live regions share the headings' context budget and are no elements of the page", () => {
  const live = { kind: "live", role: "alert", text: "Card declined", in_viewport: true };
  const page = paginate({ header: ["page"], items: [live, element(1, "Pay")], viewportCount: 2, offset: 0, maxChars: 2000, pageOrigin: "https://a.test" });
  assert.equal(page.text, 'page\nalert "Card declined"\n[1] button "Pay"');
  assert.deepEqual(page.elements.map((e) => e.ref), [1]);
});
