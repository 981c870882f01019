// @ts-check
/** The registry's providers (providers/registry.py) by the names users know, in two lengths. */

/** For the provider choice in Settings: says what each one covers. */
export const PROVIDER_NAMES = /** @type {Record<string, string>} */ ({
  openai_compat: "OpenAI, Ollama, LM Studio… (OpenAI-compatible)", anthropic: "Anthropic", gemini: "Google Gemini",
  mlx: "MLX (on this Mac)", scripted: "Scripted (tests and demos)",
});

/** For a table cell (Diagnostics), where the long names would take the narrow panel's width. */
export const PROVIDER_SHORT_NAMES = /** @type {Record<string, string>} */ ({
  openai_compat: "OpenAI-compatible", anthropic: "Anthropic", gemini: "Gemini", mlx: "MLX", scripted: "Scripted",
});
