"""A workflow from the user's own demonstration: the steps the side panel recorded (with the
snapshot of the page before and after each, extension/sw/recorder.js) become a draft the user
reviews, then a `Workflow` of the very model a saved run produces, so every replayer replays it
unchanged (host.workflows.replay).

Each step's target is found on the page before it, as a saved run's is (role, accessible name,
neighbours, frame, position: host.core.targets.element_place); a check is proposed from what the
page showed afterwards, in the verifier's own predicates (a new address or title, text that
appeared, a value a field now holds, an element's new state, a list that grew). A step that changed
the page cannot be saved without a check; a typed value becomes a parameter the user names, a
secret a `{{secret:NAME}}` bound to the origin the browser said its frame had, never its value.
"""

from __future__ import annotations

import re
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from waymark.host.agent.answers.grounding import SeenText
from waymark.host.agent.answers.matching import amount_of, normalize
from waymark.host.agent.answers.schema import path_of
from waymark.host.agent.confirm import destructive_reason
from waymark.host.agent.redaction import is_password_field, redact_url
from waymark.host.agent.trace_page import check_words
from waymark.host.agent.verifier import PredicateError, parse_predicate
from waymark.host.core.actions import parse_action
from waymark.host.core.snapshot import OpenDialog, Snapshot, SnapshotElement
from waymark.host.core.targets import ElementPlace, element_place, normalise
from waymark.host.workflows.model import (
    NAME_PATTERN,
    PARAM_PATTERN,
    Answer,
    Parameter,
    Workflow,
    WorkflowStep,
)
from waymark.host.workflows.save import NotSaveable, answer_from, slug
from waymark.host.workflows.store import now

#: Roles whose name is a message a person reads (a heading, an alert): their appearing is the step's effect.
_MESSAGES = ("heading", "alert", "status", "dialog", "alertdialog", "log")
#: Most checks proposed for one step: the user accepts, changes or drops each.
MOST = 3
#: States whose change on the acted element is proposed as its check.
_STATES = ("expanded", "pressed", "selected", "current")


class RecordedDialog(BaseModel):
    """A JavaScript dialog the user's action raised, and the answer the user gave it (their own
    hand in the browser's dialog: content/dialogs.js watched it while the tab was recorded)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["alert", "confirm", "prompt"]
    message: str = Field(default="", max_length=500)
    #: OK (a prompt's too); False is Cancel.
    accepted: bool = True
    #: What the user typed into a prompt they answered OK.
    text: str | None = Field(default=None, max_length=2000)


class RecordedAction(BaseModel):
    """One step as the service worker recorded it: what the user did, the snapshot before it
    (`before`, which lists its element under `ref` when the page did) and after it settled."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["click", "fill", "select", "press", "navigate", "answer"]
    role: str = ""
    name: str = ""
    ref: int | None = None
    value: str | None = None
    key: str | None = None
    url: str | None = None
    #: A secret was typed (a password field): its value was never read.
    secret: bool = False
    #: The origin of the frame the field was in, as the browser read it.
    frame_origin: str | None = None
    secret_origin: str | None = None
    tab_id: int | None = None
    box: list[float] = Field(default_factory=list)
    #: What the user marked as the answer (`answer`), and the page's readable text when they marked it.
    text: str | None = None
    page_text: str = ""
    #: The dialogs the action raised, in the order they opened, with the user's answers.
    dialogs: list[RecordedDialog] = Field(default_factory=list)
    #: Lines of the page's readable text the action made appear (a message in a plain paragraph).
    appeared: list[str] = Field(default_factory=list)
    before: int = Field(ge=0)
    after: int = Field(ge=0)


class Demonstration(BaseModel):
    """What the service worker hands over when the user stops recording."""

    model_config = ConfigDict(extra="forbid")

    start_url: str
    #: Empty only when the recording was lost (then `problem` says why).
    snapshots: list[Snapshot] = Field(default_factory=list)
    steps: list[RecordedAction] = Field(default_factory=list)
    #: Why a step could not be recorded, if one could not.
    problem: str = ""
    #: The readable text of the page the recording ended on, where the review may mark the answer.
    final_text: str = ""


class ProposedCheck(BaseModel):
    """A check the recorder proposes for a step, and what it says in words."""

    model_config = ConfigDict(extra="forbid")

    check: dict[str, Any]
    says: str


class DraftAnswer(BaseModel):
    """A value the user marked as the answer to read: the field of the answer it becomes (the user
    may rename it), its value in its kind, and the words the page showed around it."""

    model_config = ConfigDict(extra="forbid")

    field: str = Field(pattern=PARAM_PATTERN)
    #: What the user marked, as the page showed it.
    text: str
    value: str | int | float
    written: str = ""
    before: str = ""
    after: str = ""


class DraftStep(BaseModel):
    """One step of a recording, as the user reviews it before saving."""

    model_config = ConfigDict(extra="forbid")

    intent: str = Field(min_length=1)
    #: The action as the grammar takes it, without a ref (the target says which element).
    action: dict[str, Any]
    target: ElementPlace | None = None
    #: The page changed after this step: it cannot be saved without a check.
    changed: bool = False
    checks: list[ProposedCheck] = Field(default_factory=list)
    #: The value typed or chosen, and the parameter it becomes (the user may rename it).
    value: str | None = None
    param: str | None = Field(default=None, pattern=PARAM_PATTERN)
    #: The secret typed here (its name), bound to `secret_origin`; its value is never kept.
    secret: str | None = Field(default=None, pattern=PARAM_PATTERN)
    secret_origin: str | None = None
    frame_origin: str | None = None
    #: The answer the user marked at this step (an `extract` step): read again by every replay.
    answer: DraftAnswer | None = None
    #: Why the step is destructive, by the rule every run asks by (host.agent.confirm): a replay
    #: asks before it, and a schedule needs it approved; None when it is not.
    destructive: str | None = None


class Draft(BaseModel):
    """A recording ready for review: its steps and a name and task to start from."""

    model_config = ConfigDict(extra="forbid")

    start_url: str
    name: str = ""
    task: str = ""
    steps: list[DraftStep] = Field(default_factory=list)


# ------------------------------------------------------------------ the draft


def draft(demo: Demonstration) -> Draft:
    """The steps of a demonstration with each target placed and its checks proposed."""
    if demo.problem:
        raise NotSaveable(demo.problem)
    if not demo.snapshots:
        raise NotSaveable("the recording holds no page: record it again")
    steps: list[DraftStep] = []
    taken: set[str] = set()
    for index, seen in enumerate(demo.steps):
        if seen.before >= len(demo.snapshots) or seen.after >= len(demo.snapshots):
            raise NotSaveable(f"step {index + 1} names a page the recording does not hold")
        before, after = demo.snapshots[seen.before], demo.snapshots[seen.after]
        if seen.action == "answer":
            steps.append(_answer_step(seen, after, taken))
            continue
        step = _step(seen, before)
        if step.secret is not None:
            step.secret = _unique(slug(step.target.name if step.target else "", "secret"), taken)
        elif step.value is not None and step.action.get("type") in ("fill", "select"):
            step.param = _unique(slug(step.target.name if step.target else "", "value"), taken)
        step.destructive = _destructive(step.action, seen, before)
        step.changed, step.checks = proposed(step, seen, before, after)
        steps.extend(_answered(step, seen, before, after, taken))
    host = urlsplit(demo.start_url).hostname or "the page"
    # A name to start from: the words of the first page's title ("Sign in · Ledger" -> sign-in-ledger).
    name = re.sub(r"[^a-z0-9]+", "-", (demo.snapshots[0].title or host).lower()).strip("-")[:40].strip("-")
    return Draft(start_url=redact_url(demo.start_url) or demo.start_url, steps=steps, name=name or "recorded",
                 task=f"Do on {host} what was recorded: " + "; ".join(s.intent for s in steps))


def _step(seen: RecordedAction, before: Snapshot) -> DraftStep:
    """The step's action and its target as it stood on the page before it."""
    if seen.action == "navigate":
        url = seen.url or ""
        return DraftStep(intent=f"Go to {redact_url(url) or url}", action={"type": "navigate", "url": url})
    target = element_place(before, seen.ref) if seen.ref is not None else None
    if target is None or normalise(target.role) != normalise(seen.role) or normalise(target.name) != normalise(seen.name):
        # Not listed on the page before (it appeared meanwhile): its role and name as the frame named it.
        target = ElementPlace(role=seen.role, name=seen.name, bbox=seen.box)
    said = f'{target.role} "{target.name}"' if target.name else target.role
    if seen.action == "click":
        return DraftStep(intent=f"Click {said}", action={"type": "click"}, target=target)
    if seen.action == "press":
        return DraftStep(intent=f"Press {seen.key} in {said}", action={"type": "press", "key": seen.key or "Enter"}, target=target)
    if seen.action == "select":
        return DraftStep(intent=f'Choose "{seen.value}" in {said}', action={"type": "select", "value": seen.value or ""}, target=target,
                         value=seen.value)
    if seen.secret:
        return DraftStep(intent=f"Enter the secret into {said}", action={"type": "fill", "text": ""}, target=target, secret="secret",
                         secret_origin=seen.secret_origin, frame_origin=seen.frame_origin)
    return DraftStep(intent=f"Type into {said}", action={"type": "fill", "text": seen.value or ""}, target=target, value=seen.value or "",
                     frame_origin=seen.frame_origin)


def _destructive(action: dict[str, Any], seen: RecordedAction, before: Snapshot) -> str | None:
    """Why the recorded action is destructive, judged as a run judges it on the page it acted on
    (host.agent.confirm.destructive_reason); an element the page before did not list is judged by
    the role and name its frame gave it."""
    if action.get("type") not in ("click", "press"):
        return None
    page = before
    if seen.ref is None or before.find(seen.ref) is None:
        page = Snapshot(url=before.url, elements=[SnapshotElement(ref=1, role=seen.role, name=seen.name)])
    ref = seen.ref if page is before else 1
    try:
        return destructive_reason(parse_action({**action, "ref": ref}), page)
    except ValidationError:
        return None


def _dialog_said(dialog: RecordedDialog) -> str:
    return " ".join(dialog.message.split())


def _answered(step: DraftStep, seen: RecordedAction, before: Snapshot, after: Snapshot, taken: set[str]) -> list[DraftStep]:
    """The step and, after it, one `answer_dialog` step per confirm or prompt it raised, as a run
    answers them: the user's answer (a prompt's text a parameter). A replay holds each such dialog
    open until its answer step, so the step before it is proven by the dialog's own message (it
    fails, naming the step, when the dialog does not come or asks something else), and what the
    page showed after the last answer proves the last step. An alert has one answer: the replay
    closes it as every run does, and its message is a check of the step it followed."""
    held = [d for d in seen.dialogs if d.type in ("confirm", "prompt")]
    if not held:
        step.checks = _alerts(seen.dialogs) + step.checks
        step.changed = step.changed or bool(seen.dialogs)
        return [step]
    out = [step]
    pending = list(seen.dialogs)
    # The step, and each answer but the last, is proven by the next dialog's message and the alerts before it.
    while pending:
        alerts: list[RecordedDialog] = []
        while pending and pending[0].type == "alert":
            alerts.append(pending.pop(0))
        current = out[-1]
        if not pending:
            current.checks = _alerts(alerts) + current.checks
            break
        dialog = pending.pop(0)
        said = _dialog_said(dialog)
        current.changed = True
        current.checks = _alerts(alerts) + [ProposedCheck(check={"text_present": said[:120]}, says=f"the page asks {said[:80]!r}")]
        out.append(_answer_dialog_step(dialog, before, taken))
    last = out[-1]
    changed, checks = proposed(last, seen, before, after)
    # Cancel is often meant to change nothing: only a change a check can say counts (the focus moved is none).
    last.changed = last.changed or (changed if last.action.get("accept") else bool(checks))
    last.checks = (last.checks + checks)[:MOST]
    return out


def _alerts(dialogs: list[RecordedDialog]) -> list[ProposedCheck]:
    return [ProposedCheck(check={"text_present": _dialog_said(d)[:120]}, says=f"the page showed the alert {_dialog_said(d)[:80]!r}")
            for d in dialogs if d.type == "alert" and _dialog_said(d)]


def _answer_dialog_step(dialog: RecordedDialog, before: Snapshot, taken: set[str]) -> DraftStep:
    """The user's answer to a confirm or a prompt, as the `answer_dialog` action a run answers it with."""
    said = _dialog_said(dialog)
    action: dict[str, Any] = {"type": "answer_dialog", "accept": dialog.accepted}
    step = DraftStep(intent=f'Answer {"OK" if dialog.accepted else "Cancel"} to the {dialog.type} "{said[:80]}"', action=action)
    if dialog.type == "prompt" and dialog.accepted:
        text = dialog.text or ""
        action["text"] = text
        step.intent = f'Answer the prompt "{said[:80]}" with "{text[:80]}"'
        step.value = text
        step.param = _unique(slug(said, "answer"), taken)
    reason = destructive_reason(parse_action(action), Snapshot(url=before.url, dialog=OpenDialog(type=dialog.type, message=dialog.message)))
    step.destructive = reason
    return step


def _typed(text: str) -> str | int | float:
    """A marked value in its kind: a number or an amount read as the number it writes (`€ 1,249.00`
    is 1249), when it can mean only one; anything else the string the page shows."""
    amount = amount_of(text)
    if amount is None or len(amount[0]) != 1:
        return text
    number = next(iter(amount[0]))
    return int(number) if number == number.to_integral_value() else float(number)


def _answer_step(seen: RecordedAction, page: Snapshot, taken: set[str]) -> DraftStep:
    """The step that reads the answer the user marked, with the words around it on the page it was
    marked on (found as a run's answer is grounded: host.agent.answers.grounding)."""
    text = " ".join((seen.text or "").split())
    value = _typed(text)
    read = SeenText()
    read.snapshot(page)
    read.text(page.url, page.title, seen.page_text)
    source = read.find(value) if text else None
    if source is None or not (source.before.strip() or source.after.strip()):
        raise NotSaveable(f"the answer marked ({text[:80]!r}) is not among words the page showed: a replay would not know where to read it")
    field = _unique(slug(seen.name if seen.role not in ("cell", "text", "gridcell") else "", "answer"), taken)
    return DraftStep(intent=f'Read the answer "{text[:80]}"', action={"type": "extract"},
                     answer=DraftAnswer(field=field, text=text, value=value, written=source.written, before=source.before, after=source.after))


def _unique(name: str, taken: set[str]) -> str:
    n, chosen = 2, name
    while chosen in taken:
        chosen, n = f"{name}_{n}", n + 1
    taken.add(chosen)
    return chosen


# ------------------------------------------------------------------ checks from what changed


def _key(element: SnapshotElement) -> tuple[str, str]:
    return normalise(element.role), normalise(element.name)


def _target(element: SnapshotElement | ElementPlace) -> dict[str, Any]:
    return {"role": element.role, "name": element.name} if element.name else {"role": element.role}


def _address(before: str, after: str) -> str:
    """What of `after`'s address tells it from `before`'s: its path, else its query or fragment."""
    old, new = urlsplit(before), urlsplit(after)
    if new.path != old.path and new.path not in ("", "/"):
        # From where the two paths part: a copy of the site served from another folder still matches.
        folder = old.path.rsplit("/", 1)[0] + "/"
        return "/" + new.path[len(folder):] if new.path.startswith(folder) and len(new.path) > len(folder) else new.path
    if new.query != old.query and new.query:
        return f"?{new.query}"
    return f"#{new.fragment}" if new.fragment and new.fragment != old.fragment else ""


def proposed(step: DraftStep, seen: RecordedAction, before: Snapshot, after: Snapshot) -> tuple[bool, list[ProposedCheck]]:
    """Whether the step changed the page, and the checks that say how (at most MOST, the strongest first).
    A typed value or a choice changes its field: its check is the value the step reports."""
    if step.action.get("type") in ("fill", "select"):
        own = _value_check(step)
        return True, [own] if own is not None else []
    checks: list[ProposedCheck] = []
    changed = False
    if after.url != before.url:
        changed = True
        part = _address(before.url, redact_url(after.url) or after.url)
        if part:
            checks.append(ProposedCheck(check={"url_contains": part}, says=f"the address holds {part}"))
    if after.title != before.title and after.title.strip():
        changed = True
        checks.append(ProposedCheck(check={"title_contains": after.title.strip()}, says=f"the title is {after.title.strip()!r}"))
    old_keys = {_key(e) for e in before.elements}
    appeared = [e for e in after.elements if e.name.strip() and _key(e) not in old_keys]
    changed = changed or bool(appeared) or {_key(e) for e in after.elements} != old_keys
    for message in _messages(after.text, before.text)[:2]:
        checks.append(ProposedCheck(check={"text_present": message[:120]}, says=f"the page shows {message[:80]!r}"))
    for element in sorted(appeared, key=lambda e: (e.role not in _MESSAGES, e.order or 0))[:2]:
        checks.append(ProposedCheck(check={"text_present": element.name.strip()[:120]}, says=f"the page shows {element.name.strip()[:80]!r}"))
    if not checks and seen.appeared:
        # Nothing the snapshot lists says it: the text that appeared on the page does (a plain "Saved" paragraph).
        changed = True
        line = seen.appeared[0].strip()[:120]
        checks.append(ProposedCheck(check={"text_present": line}, says=f"the page shows {line[:80]!r}"))
    if after.url == before.url and not appeared:
        # A dialog closed, a row removed: what went away is the step's effect.
        new_keys = {_key(e) for e in after.elements}
        gone = [e for e in before.elements if e.name.strip() and _key(e) not in new_keys and e.ref != seen.ref]
        for element in sorted(gone, key=lambda e: (e.role not in _MESSAGES, e.order or 0))[:1]:
            checks.append(ProposedCheck(check={"absent": _target(element)}, says=f'{element.role} "{element.name[:80]}" is gone'))
    own = _own_check(step, seen, before, after)
    if own is not None:
        changed = True
        checks.insert(0, own)
    if after.url == before.url:
        changes = _state_changes(before, after, own_ref=seen.ref)
        changed = changed or bool(changes) or after.text != before.text
        checks.extend(changes)
    valid = [c for c in checks if _valid(c.check)]
    return changed, valid[:MOST]


def _value_check(step: DraftStep) -> ProposedCheck | None:
    """The value a fill or a choice leaves in its field."""
    target = step.target
    if target is None:
        return None
    said = target.name or target.role
    if step.secret is not None:
        # Answered by the replay's own fill of the secret (its value is never read): host.agent.secret_fills.
        return ProposedCheck(check={"value_equals": {"target": _target(target), "value": "{{secret:%s}}" % step.secret}},
                             says=f"{said} holds the secret")
    if step.value is None:
        return None
    if step.action.get("type") == "select":
        return ProposedCheck(check={"state": {"target": _target(target), "value": step.value}}, says=f'{said} shows "{step.value}"')
    return ProposedCheck(check={"value_equals": {"target": _target(target), "value": step.value}}, says=f'{said} holds "{step.value}"')


#: A snapshot's text line of a heading (`## Added to your cart`) or a live region (`status "Saved"`).
_HEADING = re.compile(r"^#{1,6} (.+)$")
_LIVE = re.compile(r'^(?:status|alert|log|output|marquee|timer) "(.+)"$')


def _messages(after: str, before: str) -> list[str]:
    """The headings and live regions' texts `after` shows that `before` did not: what a person reads as the step's outcome."""
    def said(text: str) -> list[str]:
        found = []
        for line in text.splitlines():
            match = _HEADING.match(line.strip()) or _LIVE.match(line.strip())
            if match and match.group(1).strip():
                found.append(match.group(1).strip())
        return found

    old = set(said(before))
    return [m for m in said(after) if m not in old]


def _own_check(step: DraftStep, seen: RecordedAction, before: Snapshot, after: Snapshot) -> ProposedCheck | None:
    """The clicked element's new checked or other state, when the page still shows it."""
    target = step.target
    element = _same_element(after, seen, before)
    old = before.find(seen.ref) if seen.ref is not None else None
    if target is None or element is None or old is None:
        return None
    if old.states.get("checked") != element.states.get("checked") and isinstance(element.states.get("checked", False), bool):
        held = bool(element.states.get("checked", False))
        return ProposedCheck(check={"checked": {"target": _target(target), "value": held}},
                             says=f"{target.name or target.role} is {'checked' if held else 'not checked'}")
    for state in _STATES:
        if old.states.get(state) != element.states.get(state):
            value = element.states.get(state, False)
            return ProposedCheck(check={"state": {"target": _target(target), state: value}}, says=f"{target.name or target.role} is {state}={value}")
    return None


def _same_element(after: Snapshot, seen: RecordedAction, before: Snapshot) -> SnapshotElement | None:
    if seen.ref is None or after.url != before.url:
        return None
    old = before.find(seen.ref)
    if old is None:
        return next((e for e in after.elements if normalise(e.role) == normalise(seen.role) and normalise(e.name) == normalise(seen.name)), None)
    return next((e for e in after.elements if (e.doc, e.ref) == (old.doc, old.ref)), None)


def _state_changes(before: Snapshot, after: Snapshot, own_ref: int | None) -> list[ProposedCheck]:
    """Other elements of the same page whose value changed (a basket's count), or a list that grew."""
    out: list[ProposedCheck] = []
    earlier = {(e.doc, e.ref): e for e in before.elements}
    for element in after.elements:
        old = earlier.get((element.doc, element.ref))
        if old is None or element.ref == own_ref or _key(old) != _key(element) or not element.name:
            continue
        if (old.value or "") != (element.value or "") and element.value and not is_password_field(element):
            out.append(ProposedCheck(check={"state": {"target": _target(element), "value": element.value}},
                                     says=f'{element.name} shows "{element.value}"'))
    counts_before: dict[tuple[str, str], int] = {}
    for element in before.elements:
        counts_before[_key(element)] = counts_before.get(_key(element), 0) + 1
    counted: dict[tuple[str, str], tuple[SnapshotElement, int]] = {}
    for element in after.elements:
        held = counted.get(_key(element))
        counted[_key(element)] = (element, (held[1] if held else 0) + 1)
    for key, (element, n) in counted.items():
        if element.name and n > counts_before.get(key, 0) > 0:
            out.append(ProposedCheck(check={"count_at_least": {"target": _target(element), "n": n}},
                                     says=f'{n} × {element.role} "{element.name}"'))
    return out


def _valid(check: dict[str, Any]) -> bool:
    try:
        parse_predicate(check)
    except PredicateError:
        return False
    return True


# ------------------------------------------------------------------ the user's own changes in review


def edited_check(check: dict[str, Any]) -> ProposedCheck:
    """A check the user changed or wrote in the review (its text trimmed), validated as the verifier
    reads it and said in the words of the recorder's proposals; NotACheck says what is wrong with
    one that is not a check."""
    cleaned = {name: arg.strip() if isinstance(arg, str) else arg for name, arg in check.items()}
    try:
        parse_predicate(cleaned)
    except PredicateError as exc:
        raise NotACheck(str(exc)) from None
    return ProposedCheck(check=cleaned, says=_says(cleaned))


def _says(check: dict[str, Any]) -> str:
    """A check in the words the recorder's own proposals use; any other in the trace's words."""
    (name, arg), = check.items()
    target = arg.get("target", {}) if isinstance(arg, dict) else {}
    said = target.get("name") or target.get("role") or "the element"
    if name == "text_present":
        return f"the page shows {arg[:80]!r}"
    if name == "url_contains":
        return f"the address holds {arg}"
    if name == "title_contains":
        return f"the title holds {arg!r}"
    if name == "value_equals":
        return f'{said} holds "{arg.get("value")}"'
    if name == "state" and "value" in arg and len(arg) == 2:
        return f'{said} shows "{arg["value"]}"'
    if name == "count_at_least":
        return f'{arg.get("n")} × {target.get("role", "element")} "{target.get("name", "")}"'
    return check_words(check)


class NotACheck(ValueError):
    """What the user wrote in the review is not a check the verifier can prove."""


class AnswerMark(BaseModel):
    """An answer the user marks in the review, on the page the recording ended on: an element listed
    in that page's snapshot (its role and name), or text the page showed."""

    model_config = ConfigDict(extra="forbid")

    page: Snapshot
    #: That page's readable text (the recording's `final_text`), where the answer's words around it are found.
    page_text: str = ""
    text: str = Field(min_length=1)
    role: str = ""
    name: str = ""
    #: The names the recording's parameters, secrets and answers already use.
    taken: list[str] = Field(default_factory=list)


def marked_answer(mark: AnswerMark) -> DraftStep:
    """The step that reads the answer marked in the review, grounded on the final page as one marked
    while recording is (NotSaveable when the page did not show it with words around it)."""
    seen = RecordedAction(action="answer", role=mark.role, name=mark.name, text=mark.text,
                          page_text=mark.page_text or mark.page.text, before=0, after=0)
    return _answer_step(seen, mark.page, set(mark.taken))


# ------------------------------------------------------------------ saving


class RecordedSave(BaseModel):
    """A reviewed recording to save: its steps as the user left them (checks accepted, changed or dropped)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    description: str = ""
    task: str = ""
    start_url: str = Field(min_length=1)
    steps: list[DraftStep] = Field(min_length=1)
    replace: bool = False


def _replace(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return re.sub(r"(?<!\w)" + re.escape(old) + r"(?!\w)", lambda _m: new, value)
    if isinstance(value, dict):
        return {k: _replace(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, old, new) for v in value]
    return value


def workflow_of(save: RecordedSave) -> Workflow:
    """The workflow of a reviewed recording; NotSaveable names the first step that is not ready."""
    if not re.fullmatch(NAME_PATTERN, save.name):
        raise NotSaveable(f"{save.name!r} is not a workflow name (lowercase letters, digits, - and _, up to 63)")
    for i, step in enumerate(save.steps, 1):
        if step.changed and not step.checks:
            raise NotSaveable(f"step {i} ({step.intent}) changed the page but has no check: keep a proposed check or write "
                              "one, so a replay can prove the step worked")
        for proposal in step.checks:
            try:
                parse_predicate(proposal.check)
            except PredicateError as exc:
                raise NotSaveable(f"step {i} ({step.intent}): {exc}") from None
    params: dict[str, Parameter] = {}
    steps: list[WorkflowStep] = []
    checks = [[p.check for p in s.checks] for s in save.steps]
    task = save.task.strip()
    secrets = [(s.value or "") for s in save.steps if s.secret is not None and s.value]
    for i, step in enumerate(save.steps):
        action = dict(step.action)
        action.pop("ref", None)
        origin = None
        field = "text" if action.get("type") in ("fill", "answer_dialog") else "value" if action.get("type") == "select" else None
        if step.secret is not None and field:
            action[field] = "{{secret:%s}}" % step.secret
            origin = step.secret_origin or step.frame_origin
            if not origin:
                raise NotSaveable(f"step {i + 1} ({step.intent}) types a secret, but the recording did not learn the origin of its frame")
        elif step.param is not None and field and step.value:
            placeholder = "{{param:%s}}" % step.param
            params.setdefault(step.param, Parameter(name=step.param, description=f"typed into {step.target.name if step.target else 'the page'}",
                                                    default=step.value))
            action[field] = placeholder
            checks = [_replace(c, step.value, placeholder) for c in checks]
            task = _replace(task, step.value, placeholder)
        steps.append(WorkflowStep(intent=step.intent, action=action, target=step.target, secret_origin=origin, checks=[],
                                  destructive=step.destructive))
    for step, held in zip(steps, checks):
        # A value the user marked secret is never written: a check that quotes it is dropped.
        step.checks = [c for c in held if not any(s and s in str(c) for s in secrets)]
    # The last step's checks that do not merely repeat its own typing say the task is done.
    last = steps[-1]
    criteria = [c for c in last.checks if "value_equals" not in c]
    answer = _answer_of(save.steps)
    if answer is not None:
        for step in save.steps:
            if step.param is not None and step.value:
                # A typed value in the words around the answer (`order px-1042 total`) is read beside the value the replay is given.
                word = normalize(step.value)
                for held in answer.values:
                    held.before, held.after = _replace(held.before, word, "{{param:%s}}" % step.param), _replace(held.after, word, "{{param:%s}}" % step.param)
    stamp = now()
    return Workflow(name=save.name, description=save.description, task=task or f"Replay the recorded workflow {save.name}",
                    start_url=save.start_url, parameters=list(params.values()), steps=steps, success_criteria=criteria, answer=answer,
                    source_run="recorded", created=stamp, updated=stamp)


def _answer_of(steps: list[DraftStep]) -> Answer | None:
    """The answer the user marked (one field per mark), as a saved run's answer is kept (host.workflows.save.answer_from)."""
    marks = [s.answer for s in steps if s.answer is not None]
    if not marks:
        return None
    fields = [m.field for m in marks]
    if len(set(fields)) != len(fields):
        raise NotSaveable(f"two marked answers are both named {next(f for f in fields if fields.count(f) > 1)!r}: give each its own name")
    kinds = {m.field: "string" if isinstance(m.value, str) else "number" for m in marks}
    schema = {"type": "object", "properties": {f: {"type": k} for f, k in kinds.items()}, "required": fields}
    grounding = [{"path": path_of([m.field]), "source": {"written": m.written, "before": m.before, "after": m.after}} for m in marks]
    return answer_from({m.field: m.value for m in marks}, schema, grounding, "the recording")
