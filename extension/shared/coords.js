// @ts-check
/**
 * THE coordinates module: every translation between a frame's viewport and the top-level
 * viewport, and every box computation (intersection, click point, scaling to screenshot
 * pixels) goes through here, so perception, dispatch and the overlay agree on one geometry.
 *
 * Boxes are `[x, y, width, height]` in CSS pixels. A frame's *offset* is where its viewport's
 * (0, 0) lies in top-level viewport coordinates: the sum of the content-box origins of the
 * iframe elements from the top document down to it (an iframe's content box is its
 * getBoundingClientRect() + clientLeft/clientTop).
 */

/** @typedef {[number, number, number, number]} Box */
/** @typedef {[number, number]} Point */

/**
 * A box moved by (dx, dy).
 * @param {Box} box @param {number} dx @param {number} dy
 * @returns {Box}
 */
export function translate(box, dx, dy) {
  return [box[0] + dx, box[1] + dy, box[2], box[3]];
}

/**
 * A frame-local box in top-level viewport coordinates.
 * @param {Box} box  in the frame's viewport
 * @param {Point} offset  the frame's offset (see frameOffset)
 * @returns {Box}
 */
export function toTopLevel(box, offset) {
  return translate(box, offset[0], offset[1]);
}

/**
 * A top-level point in a frame's own viewport coordinates (what CDP needs is top-level; what
 * elementFromPoint inside the frame needs is frame-local).
 * @param {Point} point @param {Point} offset
 * @returns {Point}
 */
export function toFrameLocal(point, offset) {
  return [point[0] - offset[0], point[1] - offset[1]];
}

/**
 * The offset of a child frame: its parent's offset plus the iframe element's content-box
 * origin in the parent's viewport.
 * @param {Point} parentOffset @param {Box} iframeContentBox  in the parent's viewport
 * @returns {Point}
 */
export function childFrameOffset(parentOffset, iframeContentBox) {
  return [parentOffset[0] + iframeContentBox[0], parentOffset[1] + iframeContentBox[1]];
}

/**
 * The overlap of two boxes, or null when they do not overlap (touching edges do not count).
 * @param {Box} a @param {Box} b
 * @returns {Box|null}
 */
export function intersect(a, b) {
  const x1 = Math.max(a[0], b[0]);
  const y1 = Math.max(a[1], b[1]);
  const x2 = Math.min(a[0] + a[2], b[0] + b[2]);
  const y2 = Math.min(a[1] + a[3], b[1] + b[3]);
  if (x2 <= x1 || y2 <= y1) return null;
  return [x1, y1, x2 - x1, y2 - y1];
}

/**
 * The viewport as a box.
 * @param {number} width @param {number} height
 * @returns {Box}
 */
export function viewportBox(width, height) {
  return [0, 0, width, height];
}

/**
 * True when some of `box` is visible inside `clip` (the viewport, or the viewport clipped by
 * the iframes the element sits in).
 * @param {Box} box @param {Box} clip
 */
export function isInside(box, clip) {
  return intersect(box, clip) !== null;
}

/**
 * The centre of a box.
 * @param {Box} box
 * @returns {Point}
 */
export function center(box) {
  return [box[0] + box[2] / 2, box[1] + box[3] / 2];
}

/**
 * Where to click an element: the centre of its visible part (the part inside `clip`), or null
 * when none of it is visible.
 * @param {Box} box  element box, top-level
 * @param {Box} clip  visible region, top-level (viewport, clipped by enclosing iframes)
 * @returns {Point|null}
 */
export function clickPoint(box, clip) {
  const visible = intersect(box, clip);
  return visible ? center(visible) : null;
}

/**
 * A box scaled into screenshot pixels. The factor is `bitmap.width / innerWidth` of the top
 * document (never devicePixelRatio: under automation the capture size and DPR disagree).
 * @param {Box} box @param {number} scale
 * @returns {Box}
 */
export function scaleBox(box, scale) {
  return [box[0] * scale, box[1] * scale, box[2] * scale, box[3] * scale];
}

/**
 * A point of a screenshot (its pixels) in top-level viewport CSS pixels: the inverse of
 * scaleBox, with the same factor (the coordinate actions' x, y are screenshot pixels).
 * @param {Point} point @param {number} scale
 * @returns {Point}
 */
export function fromScreenshot(point, scale) {
  return [point[0] / scale, point[1] / scale];
}

/**
 * The point `fraction` of the way from `a` to `b` (a drag's intermediate moves).
 * @param {Point} a @param {Point} b @param {number} fraction
 * @returns {Point}
 */
export function along(a, b, fraction) {
  return [a[0] + (b[0] - a[0]) * fraction, a[1] + (b[1] - a[1]) * fraction];
}

/**
 * True when two points are within `tolerance` CSS pixels of each other on both axes.
 * @param {Point} a @param {Point} b @param {number=} tolerance
 */
export function samePoint(a, b, tolerance = 1) {
  return Math.abs(a[0] - b[0]) <= tolerance && Math.abs(a[1] - b[1]) <= tolerance;
}

/**
 * A box of size w x h placed at (x, y), moved so it lies within [0, 0, maxW, maxH] (as far as
 * it fits).
 * @param {number} x @param {number} y @param {number} w @param {number} h @param {number} maxW @param {number} maxH
 * @returns {Box}
 */
export function clampBox(x, y, w, h, maxW, maxH) {
  const cx = Math.max(0, Math.min(x, maxW - w));
  const cy = Math.max(0, Math.min(y, maxH - h));
  return [cx, cy, w, h];
}

/**
 * Round a box to 1/10 CSS pixel (keeps the JSON short without losing click precision).
 * @param {Box} box
 * @returns {Box}
 */
export function roundBox(box) {
  return [Math.round(box[0] * 10) / 10, Math.round(box[1] * 10) / 10, Math.round(box[2] * 10) / 10, Math.round(box[3] * 10) / 10];
}
