// ESLint for the extension (run from the repository root with -c, so paths are relative to it).
import js from "@eslint/js";
import globals from "globals";

export default [
  { files: ["extension/**/*.js"], ...js.configs.recommended },
  {
    files: ["extension/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser, ...globals.serviceworker, ...globals.webextensions },
    },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      eqeqeq: ["error", "smart"],
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "no-var": "error",
    },
  },
  // Content scripts are classic scripts injected into pages, not modules.
  { files: ["extension/content/**/*.js"], languageOptions: { sourceType: "script" } },
];
