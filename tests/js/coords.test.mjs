// The one coordinates module: frame offsets, clipping and click points, as the browser uses them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { childFrameOffset, clampBox, clickPoint, intersect, isInside, roundBox, scaleBox, toFrameLocal, toTopLevel } from "../../extension/shared/coords.js";

test("a box in a frame moves into top-level coordinates by the frame's offset", () => {
  assert.deepEqual(toTopLevel([10, 20, 30, 40], [100, 200]), [110, 220, 30, 40]);
});

test("a top-level point moves back into the frame's own viewport", () => {
  assert.deepEqual(toFrameLocal([110, 220], [100, 200]), [10, 20]);
});

test("a nested frame's offset adds its iframe's content box to its parent's offset", () => {
  assert.deepEqual(childFrameOffset([100, 200], [5, 6, 300, 150]), [105, 206]);
});

test("boxes that only touch do not overlap", () => {
  assert.equal(intersect([0, 0, 10, 10], [10, 0, 10, 10]), null);
  assert.deepEqual(intersect([0, 0, 10, 10], [5, 5, 10, 10]), [5, 5, 5, 5]);
});

test("a click lands in the middle of the element's visible part", () => {
  assert.deepEqual(clickPoint([-50, 0, 100, 20], [0, 0, 800, 600]), [25, 10]);
  assert.equal(clickPoint([900, 0, 100, 20], [0, 0, 800, 600]), null);
});

test("an element wholly outside the clip is not inside it", () => {
  assert.equal(isInside([0, 700, 10, 10], [0, 0, 800, 600]), false);
  assert.equal(isInside([0, 595, 10, 10], [0, 0, 800, 600]), true);
});

test("boxes scale into screenshot pixels and labels stay inside the image", () => {
  assert.deepEqual(scaleBox([10, 20, 30, 40], 2), [20, 40, 60, 80]);
  assert.deepEqual(clampBox(790, -5, 20, 10, 800, 600), [780, 0, 20, 10]);
});

test("boxes round to a tenth of a pixel", () => {
  assert.deepEqual(roundBox([1.234, 5.678, 9.99, 0.04]), [1.2, 5.7, 10, 0]);
});
