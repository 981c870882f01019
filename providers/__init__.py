"""Model providers: one async interface, one normalised request/response, one error
taxonomy, one retry policy.

- base.py        LLMProvider, CompletionRequest, Completion, Delta, Capabilities
- registry.py    create(name, model, **options), names(): the one list of providers
- errors.py      the error taxonomy (AuthError, RateLimited, Timeout, Unavailable, BadRequest,
                 ContextTooLong, Blocked, CapabilityError, ProviderNotConfigured)
- retry.py       the retry policy (bounded exponential backoff with jitter, Retry-After)
- streaming.py   what a stream of deltas adds up to
- textmode.py    tools as instructions for backends without native tool calling
- deadline.py    the whole-call time budget, and retries inside it
- http.py        the httpx plumbing: status -> error, SSE, ping
- config.py      where keys come from
- choices.py     the providers a user can choose and whether each is configured
- computer_use.py  computer-use answers (Gemini, Anthropic, OpenAI) as Waymark's actions
- openai_responses.py  OpenAI's computer-use model through the Responses API
- gemini.py, openai_compat.py, anthropic.py, mlx_local.py, scripted.py: the implementations
"""
