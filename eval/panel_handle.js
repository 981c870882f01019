// @ts-check
/**
 * The diagnostic side-panel entry: runs the extension's own sidepanel.js, then installs
 * `globalThis.waymarkPanel` for the tests that drive the panel's parts directly.
 * eval/sw_handle.py copies it into a copy of the extension as sidepanel/diagnostic_panel.js and
 * points sidepanel.html at it; the folder users load never contains it.
 */
import { panel } from "./sidepanel.js";

/** @type {{waymarkPanel?: typeof panel}} */ (globalThis).waymarkPanel = panel;
