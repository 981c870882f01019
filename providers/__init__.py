"""Model providers: one async interface, one normalised request/response, one error
taxonomy, one retry policy. See providers.base."""
