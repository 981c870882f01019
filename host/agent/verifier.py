"""Predicates over a snapshot and its URL, checked `.once()` or `.eventually()`.

A step passes because these hold on fresh browser state, never because the model said so.
Elements are matched by role, accessible name and text over the snapshot, never by CSS.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from waymark.host.agent.redaction import is_password_field
from waymark.host.agent.secret_fills import SecretFills
from waymark.host.core.actions import Extract
from waymark.host.core.phases import timed
from waymark.host.core.predicates import (
    BLIND_TO_OUTCOME,
    PREDICATE_NAMES,
    PREDICATES,
    CheckedTarget,
    CountTarget,
    DownloadCheck,
    StateTarget,
    ValueTarget,
)
from waymark.host.core.snapshot import Snapshot, SnapshotElement
from waymark.host.core.targets import Target, find_elements, normalise

#: What a text_present check reads when the snapshot alone does not meet it: the whole rendered
#: page of every readable frame, not only its main content (a toast or a flash message stands
#: outside it: "...has been added to your basket.").
PAGE_TEXT = Extract(max_chars=20_000, whole=True)

FIRST_RETRY_S = 0.5
MAX_TRIES = 5
NAVIGATION_TIMEOUT_S = 3.0


class PredicateError(ValueError):
    """A predicate that is not one of the verifier's shapes."""


class Predicate(BaseModel):
    """One single-key predicate object, e.g. `{"url_contains": "/cart"}`."""

    model_config = ConfigDict(frozen=True)

    name: str
    arg: Any

    @field_validator("name")
    @classmethod
    def _known(cls, name: str) -> str:
        if name not in PREDICATE_NAMES:
            raise ValueError(f"unknown predicate {name!r}")
        return name

    def to_json(self) -> dict[str, Any]:
        return {self.name: self.arg}

    @property
    def is_navigation(self) -> bool:
        return PREDICATES[self.name].navigation


def parse_predicate(raw: Any) -> Predicate:
    """Validate one predicate object; raises PredicateError with a sentence saying what is wrong."""
    if not isinstance(raw, dict) or len(raw) != 1:
        raise PredicateError(f"a predicate is an object with exactly one key, got {str(raw)[:120]}")
    (name, arg), = raw.items()
    if name not in PREDICATE_NAMES:
        raise PredicateError(f"unknown predicate {name!r}; known: {', '.join(sorted(PREDICATE_NAMES))}")
    argument = PREDICATES[name].argument
    try:
        if argument == "bool":
            if not isinstance(arg, bool):
                raise PredicateError(f"{name} takes true or false")
        elif argument == "string":
            if not isinstance(arg, str) or not arg:
                raise PredicateError(f"{name} takes a non-empty string")
        else:
            assert isinstance(argument, type)
            argument.model_validate(arg)
        if name == "url_matches":
            re.compile(arg)
    except ValidationError as exc:
        raise PredicateError(f"{name}: {exc.errors()[0]['msg']} at {'.'.join(map(str, exc.errors()[0]['loc']))}") from None
    except re.error as exc:
        raise PredicateError(f"url_matches: bad regular expression: {exc}") from None
    return Predicate(name=name, arg=arg)


@timed("predicates")
def parse_predicates(raw: Any) -> list[Predicate]:
    """Validate a list of predicate objects."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise PredicateError("verify must be a list of predicates")
    return [parse_predicate(p) for p in raw]


# ------------------------------------------------------------------ matching


def _describe(target: Target) -> str:
    return " ".join(f"{k}={v!r}" for k, v in target.model_dump(exclude_none=True).items()) or "any element"


# ------------------------------------------------------------------ checking


class CheckResult(BaseModel):
    """The verdict of one predicate on one snapshot, with what was seen."""

    predicate: dict[str, Any]
    ok: bool
    detail: str


class VerifyContext(BaseModel):
    """What predicates compare against besides the snapshot: the URL when the step began, the
    page's readable text when it was read (the snapshot lists elements, not every paragraph), and
    what the run filled into secret fields (their values are never read from the page)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    url_before: str = ""
    page_text: str = ""
    secret_fills: SecretFills | None = None


def check(predicate: Predicate, snapshot: Snapshot, context: VerifyContext | None = None) -> CheckResult:
    """Evaluate one predicate on one snapshot."""
    context = context or VerifyContext()
    name, arg = predicate.name, predicate.arg
    ok, detail = _evaluate(name, arg, snapshot, context)
    return CheckResult(predicate=predicate.to_json(), ok=ok, detail=detail)


def url_contains(fragment: str, url: str) -> bool:
    """`url_contains`, comparing the URL's parts as what they are: a fragment that starts with `#`
    is looked for in the URL's fragment; one that starts with `?` or holds `=` or `&` (and no `?`
    further in), in its query; one that holds a `?` further in spans parts and is looked for in the
    whole URL; any other (a path `/checkout`, a word `cart`) in the URL before its query. A word in
    the query (`signin.html?return=checkout`) never meets a path check."""
    parts = urlsplit(url)
    if fragment.startswith("#"):
        return fragment[1:] in parts.fragment
    if "?" in fragment[1:]:
        return fragment in url
    if fragment.startswith("?") or "=" in fragment or "&" in fragment:
        return fragment.removeprefix("?") in parts.query
    return fragment in urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def shown_text(snap: Snapshot, page_text: str = "") -> str:
    """All the text a page shows, normalised: title, snapshot text, read text, element names and values."""
    return normalise(" ".join([snap.title, snap.text, page_text, *(e.name for e in snap.elements), *(e.value or "" for e in snap.elements)]))


def _evaluate(name: str, arg: Any, snap: Snapshot, ctx: VerifyContext) -> tuple[bool, str]:
    if name == "url_contains":
        return url_contains(arg, snap.url), f"url is {snap.url}"
    if name == "url_matches":
        return re.search(arg, snap.url) is not None, f"url is {snap.url}"
    if name == "url_changed":
        changed = snap.url != ctx.url_before
        return changed == arg, f"url {'changed to' if changed else 'stayed'} {snap.url}"
    if name == "title_contains":
        return normalise(arg) in normalise(snap.title), f"title is {snap.title!r}"
    if name == "text_present":
        if normalise(arg) in shown_text(snap, ctx.page_text):
            return True, "found on the page"
        if ctx.secret_fills is not None and ctx.secret_fills.shown(snap.url, snap.elements, arg):
            # The detail never says which field: the text is a secret.
            return True, "held by a secret field this run filled with it (its value is never read)"
        return False, "not on the page"
    if name in ("exists", "absent"):
        target = Target.model_validate(arg)
        found = find_elements(snap, target)
        summary = f"{len(found)} element(s) with {_describe(target)}"
        return (bool(found) if name == "exists" else not found), summary
    if name == "count_at_least":
        spec = CountTarget.model_validate(arg)
        found = find_elements(snap, spec.target)
        return len(found) >= spec.n, f"{len(found)} element(s) with {_describe(spec.target)}"
    if name == "value_equals":
        spec = ValueTarget.model_validate(arg)
        found = find_elements(snap, spec.target)
        if not found:
            return False, f"no element with {_describe(spec.target)}"
        element = found[0]
        if is_password_field(element) and not element.value:
            # The detail never quotes the expected text: it is the secret.
            if ctx.secret_fills is not None and ctx.secret_fills.holds(snap.url, element, spec.value):
                return True, f"[{element.ref}] holds the text this run filled in (a password's value is never read)"
            held = "holds a value" if element.states.get("has_value") else "is empty"
            return False, f"[{element.ref}] is a password field that {held}; its value is never read, and this run has not filled it with that text"
        value = element.value or ""
        return value == spec.value, f"value of [{element.ref}] is {value!r}"
    if name == "checked":
        spec = CheckedTarget.model_validate(arg)
        found = find_elements(snap, spec.target)
        if not found:
            return False, f"no element with {_describe(spec.target)}"
        held = _held_state(found[0], "checked")
        # A partly checked box ("mixed") is neither checked nor unchecked.
        said = "partly checked (mixed)" if held == "mixed" else "checked" if held is True else "not checked"
        return held == spec.value and held != "mixed", f"[{found[0].ref}] is {said}"
    if name == "state":
        return _state_holds(StateTarget.model_validate(arg), snap)
    if name == "downloaded":
        return _downloaded(DownloadCheck.model_validate(arg), snap)
    raise PredicateError(f"unknown predicate {name!r}")


def _downloaded(spec: DownloadCheck, snap: Snapshot) -> tuple[bool, str]:
    """`downloaded`: a complete download of the run (Chrome's report of it) has the file name asked for."""
    fitting = [d for d in snap.downloads if spec.fits(d.name)]
    done = next((d for d in fitting if d.state == "complete"), None)
    if done is not None:
        return True, f"download {done.id} {done.name!r} is complete ({done.size} bytes)"
    if fitting:
        return False, "; ".join(f"download {d.id} {d.name!r} is {d.state.replace('_', ' ')}" for d in fitting)
    others = ", ".join(repr(d.name) for d in snap.downloads)
    return False, f"no download with that name (downloads: {others})" if others else "nothing was downloaded"


def _held_state(element: SnapshotElement, key: str) -> Any:
    """What the element holds of one state, as the snapshot says it: a state it does not list is
    false (not selected, not expanded), and a column it does not sort is `none`."""
    if key == "value":
        return element.value or ""
    return element.states.get(key, "none" if key == "sort" else False)


def _state_matches(element: SnapshotElement, key: str, want: Any) -> bool:
    held = _held_state(element, key)
    if key == "value":
        # A range widget's value is met by its number or by its words (aria-valuetext).
        return normalise(want) in (normalise(held), normalise(str(element.states.get("valuetext", ""))))
    if key == "current" and want is True:
        return held is not False
    return bool(held == want)


def _state_holds(spec: StateTarget, snap: Snapshot) -> tuple[bool, str]:
    """`state`: the first element fitting the target holds every state the check asserts."""
    found = find_elements(snap, spec.target)
    if not found:
        return False, f"no element with {_describe(spec.target)}"
    element = found[0]
    asserted = spec.asserted()
    if "value" in asserted and is_password_field(element):
        return False, f"[{element.ref}] is a password field: its value is never read (use value_equals)"
    held = ", ".join(f"{k}={_held_state(element, k)!r}" for k in asserted)
    return all(_state_matches(element, k, v) for k, v in asserted.items()), f"[{element.ref}] holds {held}"


def key(predicate: dict[str, Any]) -> str:
    """A predicate's identity, to compare the checks of one step before and after it acted."""
    return json.dumps(predicate, sort_keys=True, ensure_ascii=False)


def failures_line(failed: list[CheckResult]) -> str:
    """Failed checks in words: `url_contains (url is ...); ...`."""
    return "; ".join(f"{list(r.predicate)[0]} ({r.detail})" for r in failed)


def says_outcome(predicate: dict[str, Any]) -> bool:
    """Whether a check's holding can say anything of what a step or task did: one that any
    navigation makes hold (`url_changed`) cannot, whatever the navigation led to."""
    return not set(predicate) & BLIND_TO_OUTCOME


#: Predicates that say which page the tab is on, not what is on it.
PAGE_IDENTITY = ("title_contains", "url_contains", "url_matches")


def names_page_left(result: CheckResult, held_there: set[str]) -> bool:
    """A failing criterion on which page the tab is on (its title or URL) that held on a page
    (`held_there`: the keys of the criteria that held on it): it named that page, and its failing
    says only that the run left it. Left, the page the run began on is no reason to call the task
    failed, since a task that goes anywhere leaves it."""
    return not result.ok and list(result.predicate)[0] in PAGE_IDENTITY and key(result.predicate) in held_there


def unreachable_by_link(predicates: list[Predicate], snapshot: Snapshot) -> list[Predicate]:
    """URL checks that nothing on this page leads to: neither the page's URL nor any link on it
    (nor any form's action: an element's `href`) meets them. Only decided on a page seen whole (no
    further snapshot page): elsewhere a link beyond the text budget might. A form or script may
    still navigate anywhere, so this is a reason to re-plan after an attempt failed, never to
    refuse a plan outright."""
    if snapshot.next_offset is not None:
        return []
    urls = [snapshot.url, *(e.href for e in snapshot.elements if e.href)]
    out = []
    for p in predicates:
        if p.name == "url_contains" and not any(url_contains(p.arg, u) for u in urls):
            out.append(p)
        elif p.name == "url_matches" and not any(re.search(p.arg, u) for u in urls):
            out.append(p)
    return out


SnapshotSource = Callable[[], Awaitable[Snapshot]]
TextSource = Callable[[], Awaitable[str]]


class Verification(BaseModel):
    """All predicates' last results, how many snapshots were tried, and the snapshot judged."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    ok: bool
    results: list[CheckResult]
    tries: int
    snapshot: Snapshot | None = None

    def failed(self) -> list[CheckResult]:
        return [r for r in self.results if not r.ok]

    def failed_line(self) -> str:
        """The failed checks in words, for a reason or feedback: `url_contains (url is ...); ...`."""
        return failures_line(self.failed())


class Expectation:
    """A step's predicates, checked together on one snapshot at a time."""

    def __init__(self, predicates: list[Predicate], context: VerifyContext | None = None, page_text: TextSource | None = None) -> None:
        self.predicates = predicates
        self.context = context or VerifyContext()
        #: Reads the page's text when a text_present predicate is not met by the snapshot alone.
        self.page_text = page_text

    @timed("predicates")
    def once(self, snapshot: Snapshot) -> Verification:
        """Check every predicate on this snapshot."""
        results = [check(p, snapshot, self.context) for p in self.predicates]
        return Verification(ok=all(r.ok for r in results), results=results, tries=1, snapshot=snapshot)

    async def judge(self, snapshot: Snapshot) -> Verification:
        """Check this snapshot, reading the page's text too when a text_present predicate needs it."""
        self.context.page_text = ""
        verdict = self.once(snapshot)
        if not verdict.ok and self.page_text is not None and any(next(iter(r.predicate)) == "text_present" for r in verdict.failed()):
            self.context.page_text = await self.page_text()
            verdict = self.once(snapshot)
        return verdict

    def default_timeout(self) -> float | None:
        """3 s when any predicate is about navigation; otherwise bounded by the tries alone."""
        return NAVIGATION_TIMEOUT_S if any(p.is_navigation for p in self.predicates) else None

    async def eventually(
        self,
        first: Snapshot,
        fresh: SnapshotSource,
        timeout: float | None = None,
        backoff: float = FIRST_RETRY_S,
        max_tries: int = MAX_TRIES,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> Verification:
        """Check `first`, then re-snapshot after `backoff` s, doubling, until all hold, the tries
        run out or `timeout` s have passed (default: `default_timeout()`)."""
        timeout = self.default_timeout() if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        verdict = await self.judge(first)
        delay = backoff
        tries = 1
        while not verdict.ok and tries < max_tries:
            if deadline is not None:
                left = deadline - loop.time()
                if left <= 0:
                    break
                delay = min(delay, left)
            await sleep(delay)
            verdict = await self.judge(await fresh())
            tries += 1
            delay *= 2
        verdict.tries = tries
        return verdict
