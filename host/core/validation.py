"""Pydantic validation errors as a sentence for a caller: where and what, never the input.

`str(ValidationError)` quotes every input value it rejects (`input_value=...`), and an input can
be anything a caller sent or a file it pointed at (a secret store given as a script): only the
field's location and pydantic's message reach an error reply."""

from __future__ import annotations

from pydantic import ValidationError


def problems(exc: ValidationError, limit: int = 5, whole: str = "value") -> str:
    """The first `limit` problems of `exc` as `loc: message; ...` (`whole` names an error of the
    value itself), with no input value and no documentation link."""
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or whole}: {e['msg']}"
                     for e in exc.errors(include_input=False, include_url=False, include_context=False)[:limit])
