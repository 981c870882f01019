// @ts-check
/** Constants of the native-messaging protocol; the message shapes are in protocol.schema.json and,
 * as JSDoc types, in protocol_types.js (both generated from host/core/protocol.py). */

export const PROTOCOL_VERSION = 1;
export const HOST_NAME = "dev.waymark.host";
