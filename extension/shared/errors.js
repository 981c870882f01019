// @ts-check
/**
 * Reading a caught value, whatever was thrown: an Error, a typed failure carrying a stable
 * `code` (and maybe `data`), Chrome's lastError object, or anything else.
 */

/** @param {unknown} e @returns {Record<string, unknown>} the thrown value's own fields, if it is an object */
function fields(e) {
  return e !== null && typeof e === "object" ? /** @type {Record<string, unknown>} */ (e) : {};
}

/** @param {unknown} e @returns {string} its message, or the value itself as text */
export function errorMessage(e) {
  return String(fields(e).message || e);
}

/** @param {unknown} e @returns {string|undefined} the stable code of a typed failure */
export function errorCode(e) {
  const code = fields(e).code;
  return typeof code === "string" ? code : undefined;
}

/** @param {unknown} e @returns {Record<string, unknown>|null} the evidence a typed failure carries */
export function errorData(e) {
  const data = fields(e).data;
  return data !== null && typeof data === "object" ? /** @type {Record<string, unknown>} */ (data) : null;
}
