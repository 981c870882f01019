// @ts-check
/** Constants of the native-messaging protocol; the message shapes are in protocol.schema.json. */

export const PROTOCOL_VERSION = 1;
export const HOST_NAME = "dev.waymark.host";

/**
 * @typedef {{v: 1, type: string, id?: string|null, [key: string]: any}} Message
 * @typedef {{code: string, message: string}} ErrorInfo
 */
