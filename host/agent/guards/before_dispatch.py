"""Guards on a decision before it is dispatched, in the order they run."""

from __future__ import annotations

from typing import Any
from urllib.parse import urldefrag, urlsplit

from waymark.host.agent.effects import effect_keys, page_state
from waymark.host.agent.guards.base import Finding, Guard, GuardContext, action_key
from waymark.host.core.actions import absolute_url
from waymark.host.core.snapshot import Snapshot, SnapshotElement
from waymark.host.core.targets import normalise


def already_done(element: SnapshotElement, state: str) -> str:
    """What the model is told when its action would change nothing: the element, its state, and to move on."""
    return f'[{element.ref}] {element.role} "{element.name}" {state}; go on with the next part of the task'


def scroll_directions(snapshot: Snapshot) -> tuple[str, ...] | None:
    """The directions the page can still scroll (None for a snapshot without the page's size, an error page)."""
    vp = snapshot.viewport
    try:
        at_edge = {"down": float(vp["scroll_y"]) + float(vp["height"]) >= float(vp["page_height"]) - 1,
                   "up": float(vp["scroll_y"]) <= 0,
                   "right": float(vp["scroll_x"]) + float(vp["width"]) >= float(vp["page_width"]) - 1,
                   "left": float(vp["scroll_x"]) <= 0}
    except (KeyError, TypeError, ValueError):
        return None
    return tuple(d for d, edge in at_edge.items() if not edge)


class PageAtEdge(Guard):
    """A scroll of the page (no ref) towards an end the page has already reached moves nothing."""

    name = "page_at_edge"
    stage = "before_dispatch"
    strength = "refusal"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        if action.type != "scroll" or action.ref is not None:
            return None
        movable = scroll_directions(snapshot)
        if movable is None or action.direction in movable:
            return None
        end = "end" if action.direction in ("down", "right") else "start"
        return self.finding("already_done", f"the page is already scrolled to its {end} and the snapshot lists every element of it; "
                                            "act on one of them by its ref (a ref inside a list scrolls that list), or answer done")


class SecretRefill(Guard):
    """Filling a secret field with the very text this run last filled it with, while it still
    holds a value, changes nothing (its value is never read, so only this run's own fill tells)."""

    name = "secret_refill"
    stage = "before_dispatch"
    strength = "refusal"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        element = snapshot.find(action.ref) if action.type == "fill" else None
        if element is None or not context.secret_fills.holds(snapshot.url, element, action.text):
            return None
        return self.finding("already_done", already_done(element, "already holds the text you filled in"))


class AlreadySo(Guard):
    """A fill with the text the field already shows, or a check (uncheck) of a box already checked
    (unchecked), leaves the page as it is; the page may still react to the events, so the model may insist."""

    name = "already_so"
    stage = "before_dispatch"
    strength = "advisory"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        ref = getattr(action, "ref", None)
        element = snapshot.find(ref) if isinstance(ref, int) else None
        if element is None:
            return None
        if action.type == "fill" and element.value is not None and element.value == action.text and "{{" not in action.text:
            return self.finding("already_done", already_done(element, f'already holds "{action.text}"'))
        if action.type == "check" and element.states.get("checked") is True:
            return self.finding("already_done", already_done(element, "is already checked"))
        if action.type == "uncheck" and element.states.get("checked") is False:
            return self.finding("already_done", already_done(element, "is already unchecked"))
        return None


#: Roles that hold controls without being one (WAI-ARIA's landmark and window roles).
CONTAINER_ROLES = frozenset({"dialog", "alertdialog", "main", "region", "navigation", "banner", "contentinfo",
                             "complementary", "form", "document"})
#: Most controls named in the advice on a press on a container.
_INSIDE_LISTED = 8


class NotAControl(Guard):
    """A click on a container (a dialog, a landmark) lands on whatever sits at its centre, not on
    the container; the controls inside it are named instead."""

    name = "not_a_control"
    stage = "before_dispatch"
    strength = "advisory"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        ref = getattr(action, "ref", None)
        element = snapshot.find(ref) if action.type in ("click", "double_click") and isinstance(ref, int) else None
        if element is None or element.role not in CONTAINER_ROLES:
            return None
        inside = [e for e in snapshot.elements if e.ref != element.ref and e.frame == element.frame and e.role not in CONTAINER_ROLES
                  and _box_inside(e.bbox, element.bbox)]
        said = f'[{element.ref}] is a {element.role} "{element.name}", which holds controls but is not one'
        if not inside:
            return self.finding("not_a_control", said + "; act on a control (a button, link or field) by its own ref")
        listed = ", ".join(f'[{e.ref}] {e.role} "{e.name}"' for e in inside[:_INSIDE_LISTED])
        return self.finding("not_a_control", f"{said}; act on one of the controls inside it: {listed}")


def _box_inside(inner: list[float], outer: list[float]) -> bool:
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return w > 0 and h > 0 and x >= ox and y >= oy and x + w <= ox + ow and y + h <= oy + oh


class RepeatedAfterEffect(Guard):
    """An action sent again for a step whose check failed after it (a retry, or a plan made after
    that failure), unless the first send stayed in the page and the page is back as it was: it
    changed something (the tab went elsewhere, the page sent a request or a form, an element's
    value or state moved, text appeared), so the second one can only repeat it (a second item in
    the basket, one more notch) or undo it (the sort flipped back, the folder closed)."""

    name = "repeated_after_effect"
    stage = "before_dispatch"
    strength = "refusal"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        effect = next((context.effects[k] for k in effect_keys(action, snapshot) if k in context.effects), None)
        if effect is None or (not effect.outside and page_state(snapshot) == effect.before):
            return None
        return self.finding("already_changed", f"this very action was already done for this step and it changed the page: {effect.said}; "
                                               "doing it again would repeat or undo that. If what changed is what the step wanted, it is "
                                               "done: go on, or answer done; else act on another element")


class RepeatedWithoutEffect(Guard):
    """The same action on the same page, after it was just dispatched there and left the page's
    listing exactly as it was, is unlikely to do more the second time."""

    name = "repeated_without_effect"
    stage = "before_dispatch"
    strength = "advisory"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        if action.type in ("wait", "done", "ask_user", "extract") or action_key(action, snapshot) not in context.without_effect:
            return None
        return self.finding("no_effect", "this very action was just done on this page and changed nothing the snapshot shows; "
                                         "do something else (another element, another key, done), or give the same action again "
                                         "if it needs to be repeated")


#: Actions that send the form of the element they act on.
_SENDING = frozenset({"click", "press"})


class FormIncomplete(Guard):
    """A press that sends a form (its button, or Enter in one of its fields) while a field of that
    form is required and empty, or holds a value the page marks invalid; or while the task gives an
    email address the run has not typed, the page does not show, and an email field of that form is
    empty. What the page says of its fields (required, aria-required, validity, aria-invalid) comes first."""

    name = "form_incomplete"
    stage = "before_dispatch"
    strength = "advisory"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        ref = getattr(action, "ref", None)
        pressed = snapshot.find(ref) if action.type in _SENDING and isinstance(ref, int) else None
        if pressed is None or pressed.form is None or not _sends(action, pressed):
            return None
        fields = [e for e in snapshot.elements if (e.frame, e.doc, e.form) == (pressed.frame, pressed.doc, pressed.form)]
        wanting = next((e for e in fields if _wanting(e)), None)
        if wanting is not None:
            why = "is required and empty" if _empty(wanting) else "holds a value the page marks invalid"
            return self.finding("value_missing", f'[{wanting.ref}] {wanting.role} "{wanting.name}" {why}: fill it before you send '
                                                 f'the form with [{pressed.ref}] {pressed.role} "{pressed.name}"')
        unseen = _untyped_unseen(context, snapshot)
        field = next((e for e in fields if _empty(e) and _says_email(e)), None) if unseen else None
        if field is None:
            return None
        return self.finding("value_missing", f'the task gives {unseen[0]}, which this run has not typed, and [{field.ref}] textbox '
                                             f'"{field.name}" is empty: fill it before you press [{pressed.ref}] {pressed.role} "{pressed.name}"')


def _sends(action: Any, element: SnapshotElement) -> bool:
    """Whether the action sends the element's form: a click on its button, Enter in one of its text fields."""
    if action.type == "click":
        return element.role == "button"
    return action.key.casefold() in ("enter", "return") and element.role in ("textbox", "searchbox", "button")


def _empty(element: SnapshotElement) -> bool:
    return not element.value and not element.states.get("has_value")


def _wanting(element: SnapshotElement) -> bool:
    """A field the page itself says the form cannot be sent without (HTML constraint validation, ARIA)."""
    if element.states.get("disabled") or element.role not in ("textbox", "searchbox", "combobox", "spinbutton", "checkbox"):
        return False
    if element.states.get("invalid"):
        return True
    if not element.states.get("required"):
        return False
    return element.states.get("checked") is False if element.role == "checkbox" else _empty(element)


def _says_email(element: SnapshotElement) -> bool:
    said = " ".join(t for t in (element.name, element.placeholder, element.field, str(element.states.get("type", ""))) if t).casefold()
    return element.role == "textbox" and ("email" in said or "e-mail" in said)


def _untyped_unseen(context: GuardContext, snapshot: Snapshot) -> list[str]:
    """The task's values this run has not typed and the page shows nowhere (a prefilled field counts)."""
    entered = normalise(" ".join(context.typed))
    shown = normalise(" ".join([snapshot.text, *(e.value or "" for e in snapshot.elements)]))
    return [v for v in context.task_values if normalise(v) not in entered and normalise(v) not in shown]


#: Addresses every site may answer whether or not a page links them.
_WELL_KNOWN = ("/robots.txt", "/sitemap.xml", "/favicon.ico", "/humans.txt", "/security.txt", "/.well-known/")


def _page(url: str) -> str:
    return urldefrag(url)[0]


def _path(url: str) -> str:
    return urlsplit(url).path.rstrip("/") or "/"


def _shape(path: str) -> str:
    """A path with its numeric segments as `#`: `/orders/1042` and `/orders/1041` are one shape."""
    return "/".join("#" if part.isdigit() else part for part in path.split("/"))


class MadeUpUrl(Guard):
    """Opening a page of the tab's own site that no link of the page leads to, that the task does
    not give and the run has not been on, is a guess: the same path with another query, a numbered
    sibling of a linked path (`/orders/1042` beside `/orders/1041`) and well-known addresses
    (`/robots.txt`) are the site's known shape and pass; other sites are the policy's to judge."""

    name = "made_up_url"
    stage = "before_dispatch"
    strength = "advisory"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        given = getattr(action, "url", None) if action.traits.opens_url else None
        if not given:
            return None
        url = absolute_url(given, snapshot.url)
        target, here = urlsplit(url), urlsplit(snapshot.url)
        if not here.netloc or (target.scheme, target.netloc) != (here.scheme, here.netloc):
            return None
        if snapshot.next_offset is not None or snapshot.stats.get("occluded"):
            return None  # a link beyond the text budget or under an overlay may lead there
        known = [snapshot.url, *context.visited, *(absolute_url(e.href, snapshot.url) for e in snapshot.elements if e.href)]
        if (_page(url) in {_page(k) for k in known} or _page(url) in context.task or (target.path.strip("/") and target.path in context.task)
                or _path(url) in {_path(k) for k in known} or _shape(_path(url)) in {_shape(_path(k)) for k in known}
                or target.path.startswith(_WELL_KNOWN)):
            return None
        where = target.path + (f"?{target.query}" if target.query else "")
        return self.finding("made_up_url", f"no link on this page leads to {where}, the task does not give it and this run has not been "
                                           "there: a guessed address often opens an error page. Click a link or button of this page, "
                                           "go back, or answer done; give the same navigate again if you know the address exists")


#: The order they run in: the first finding stops the others.
BEFORE_DISPATCH: tuple[Guard, ...] = (PageAtEdge(), SecretRefill(), AlreadySo(), NotAControl(), RepeatedAfterEffect(), RepeatedWithoutEffect(),
                                      FormIncomplete(), MadeUpUrl())
