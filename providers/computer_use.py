"""Computer-use answers as Waymark actions: what Gemini's computer-use functions and Anthropic's
computer tool ask for, written as the arguments of the executor's one `act` tool.

A computer-use model answers in screen coordinates of the screenshot it was shown. Waymark's
coordinate actions (`click_at`, `double_click_at`, `move_to`, `drag_at`, `scroll_at`) take
the screenshot's pixels, so Anthropic's coordinates pass through as they are (its display is
declared the screenshot's size) unless the screenshot is larger than Anthropic's models see
unscaled (a capture at device-pixel-ratio 2): then the images are sent scaled down, the display
declared at that size, and the coordinates scaled back up (AnthropicScreen). Gemini's,
normalised to 0-999, are scaled to the screenshot.

Typing has no ref in either vocabulary: it goes to the focused element (Anthropic's `type`,
Gemini's `type`) or to the field at a point (Gemini's `type_text_at`). Such an answer is a
`type` (or a `fill`, when the field is to be cleared first) without a ref, with `x`/`y` when it
names a point; the executor resolves it to the ref of the field at that point or of the focused
element (host.agent.screen), so typing keeps every check a ref-based `type` has. Gemini's scroll
magnitude comes as `amount_px` (screenshot pixels), made CSS pixels there too.

A right click at a point is a `right_click` with `x`/`y`, given the ref of what is there the
same way. An action Waymark cannot do (a triple or middle click, holding a mouse button or a
key) keeps its own name: the decision parser answers it as an action the grammar lacks, with a reminder.
"""

from __future__ import annotations

import base64
import math
import struct
from typing import Any

from waymark.providers.base import CompletionRequest, ImagePart
from waymark.providers.errors import BadRequest

#: The name of Anthropic's computer tool, in requests and in its tool_use blocks.
ANTHROPIC_TOOL_NAME = "computer"
#: Anthropic's computer tool versions -> the beta each needs (anthropic-beta header).
ANTHROPIC_TOOL_BETAS: dict[str, str] = {
    "computer_20250124": "computer-use-2025-01-24",
    "computer_20251124": "computer-use-2025-11-24",
}
DEFAULT_ANTHROPIC_TOOL = "computer_20250124"
#: Gemini's coordinates run from 0 to 999 across the screen, whatever its size.
GEMINI_SCALE = 1000
#: Gemini's scroll magnitude when it gives none (the reference implementation's default), 0-999.
GEMINI_DEFAULT_MAGNITUDE = 800
#: The largest image Anthropic's models see unscaled: a longer edge or more pixels and the API
#: downsamples it, and the model's coordinates are of the smaller image (Anthropic's computer-use
#: docs: scale screenshots down to fit yourself, declare that size, scale coordinates back up).
ANTHROPIC_MAX_EDGE_PX = 1568
ANTHROPIC_MAX_PIXELS = 1_150_000
#: Pixels one notch of Anthropic's `scroll_amount` moves (a mouse wheel's usual step).
WHEEL_NOTCH_PX = 100
#: Longest wait an answer can ask for, in milliseconds (the grammar's bound).
MAX_WAIT_MS = 60_000

#: xdotool key names (Anthropic's `key` action) and Gemini's key names -> Waymark's (host.core.actions Press).
_KEYS: dict[str, str] = {
    "return": "Enter", "enter": "Enter", "kp_enter": "Enter", "escape": "Escape", "esc": "Escape", "tab": "Tab",
    "backspace": "Backspace", "delete": "Delete", "insert": "Insert", "space": "Space", "home": "Home", "end": "End",
    "page_up": "PageUp", "pageup": "PageUp", "prior": "PageUp", "page_down": "PageDown", "pagedown": "PageDown", "next": "PageDown",
    "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
    "ctrl": "Control", "control": "Control", "control_l": "Control", "control_r": "Control",
    "shift": "Shift", "shift_l": "Shift", "shift_r": "Shift", "alt": "Alt", "alt_l": "Alt", "alt_r": "Alt", "option": "Alt",
    "super": "Meta", "super_l": "Meta", "meta": "Meta", "cmd": "Meta", "command": "Meta", "win": "Meta",
}


class ScreenshotError(BadRequest):
    """An image whose size cannot be read: a computer-use request needs it to place coordinates."""


def image_size(data_b64: str) -> tuple[int, int]:
    """(width, height) in pixels of a base64 JPEG or PNG, from its header (raises ScreenshotError)."""
    try:
        data = base64.b64decode(data_b64, validate=False)
    except ValueError:
        raise ScreenshotError("the screenshot is not base64") from None
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 <= len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            (length,) = struct.unpack(">H", data[i + 2:i + 4])
            # Start-of-frame markers (baseline, progressive, ...) carry the size; C4, C8, CC do not.
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                height, width = struct.unpack(">HH", data[i + 5:i + 9])
                return width, height
            i += 2 + length
    raise ScreenshotError("the screenshot is neither a JPEG nor a PNG with a readable size")


def screenshot_size(request: CompletionRequest) -> tuple[int, int] | None:
    """The size of the request's newest image, the screenshot a computer-use answer is about;
    None when it carries none (a planner's or chat's request: those get no computer tool)."""
    images = [p for m in request.messages for p in m.content if isinstance(p, ImagePart)]
    return image_size(images[-1].data_b64) if images else None


def anthropic_fit(width: int, height: int) -> float:
    """The factor (at most 1) that brings a screenshot within what Anthropic's models see
    unscaled: a device-pixel-ratio-2 capture of a 1280x800 viewport (2560x1600) gets 0.53."""
    if width <= 0 or height <= 0:
        return 1.0
    return min(1.0, ANTHROPIC_MAX_EDGE_PX / max(width, height), math.sqrt(ANTHROPIC_MAX_PIXELS / (width * height)))


def fit_image(part: ImagePart) -> ImagePart:
    """The image scaled down to fit Anthropic's limit (anthropic_fit), as it was when it fits."""
    import io

    from PIL import Image

    width, height = image_size(part.data_b64)
    factor = anthropic_fit(width, height)
    if factor >= 1.0:
        return part
    with Image.open(io.BytesIO(base64.b64decode(part.data_b64))) as image:
        fmt = "PNG" if image.format == "PNG" else "JPEG"
        small = image.convert("RGB" if fmt == "JPEG" else image.mode).resize(_scaled(width, height, factor), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    small.save(buffer, format=fmt, **({"quality": 85} if fmt == "JPEG" else {}))
    return ImagePart(media_type=f"image/{fmt.lower()}", data_b64=base64.b64encode(buffer.getvalue()).decode())


def _scaled(width: int, height: int, factor: float) -> tuple[int, int]:
    return max(1, round(width * factor)), max(1, round(height * factor))


class AnthropicScreen:
    """What Anthropic's computer tool is told about a screenshot of `width` x `height`: the
    display it declares (the screenshot scaled down by anthropic_fit, as the images are sent), and
    the model's coordinates in that display scaled back up to the screenshot's pixels."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.display = _scaled(width, height, anthropic_fit(width, height))

    @property
    def scaled(self) -> bool:
        """True when the screenshot is larger than the display the model is shown."""
        return self.display != (self.width, self.height)

    def _back(self, point: Any) -> Any:
        if not (isinstance(point, list) and len(point) == 2 and all(isinstance(v, (int, float)) for v in point)):
            return point  # left for the grammar to refuse
        return [round(point[0] * self.width / self.display[0]), round(point[1] * self.height / self.display[1])]

    def action(self, args: dict[str, Any]) -> dict[str, Any]:
        """anthropic_action of an input whose coordinates are in the declared display's pixels."""
        scaled = {k: self._back(v) if k in ("coordinate", "start_coordinate") else v for k, v in args.items()}
        return anthropic_action(scaled)


def waymark_key(combo: str) -> str:
    """A key combo as Waymark's `press` names it: `ctrl+shift+Page_Down` -> `Control+Shift+PageDown`."""
    parts = [p.strip() for p in combo.split("+")] if combo not in ("+", "") else [combo]
    return "+".join(_KEYS.get(p.lower(), p) for p in parts if p) or combo


def _point(x: Any, y: Any) -> dict[str, Any]:
    return {"x": x, "y": y}


def _wait_ms(seconds: Any) -> int:
    try:
        return max(0, min(MAX_WAIT_MS, round(float(seconds) * 1000)))
    except (TypeError, ValueError):
        return 1000


class GeminiScreen:
    """Gemini's computer-use function calls as `act` arguments, for a screenshot of `width` x `height`."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height

    def _x(self, value: Any) -> Any:
        # The reference implementation's scaling (int(x / 1000 * width)); a non-number is left for the grammar to refuse.
        return int(value / GEMINI_SCALE * self.width) if isinstance(value, (int, float)) else value

    def _y(self, value: Any) -> Any:
        return int(value / GEMINI_SCALE * self.height) if isinstance(value, (int, float)) else value

    def _at(self, args: dict[str, Any]) -> dict[str, Any]:
        return _point(self._x(args.get("x")), self._y(args.get("y")))

    def _scroll(self, args: dict[str, Any]) -> dict[str, Any]:
        # The magnitude is scaled like a coordinate along the scrolled axis: screenshot pixels,
        # which the executor makes the CSS pixels of `amount` (host.agent.screen).
        direction = args.get("direction")
        magnitude = args.get("magnitude", GEMINI_DEFAULT_MAGNITUDE)
        pixels = self._x(magnitude) if direction in ("left", "right") else self._y(magnitude)
        out = {"action": "scroll_at", **self._at(args), "direction": direction}
        return {**out, "amount_px": pixels} if isinstance(pixels, int) and pixels > 0 else out

    def action(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """The `act` arguments for one predefined function call (both of Gemini's vocabularies:
        `click_at`, `type_text_at`, `scroll_document`, `key_combination`... and `click`, `type`,
        `scroll`, `hotkey`...). An action Gemini's safety check wants confirmed becomes a question
        for the user: the model proposes it again once the user has answered."""
        safety = args.get("safety_decision")
        if isinstance(safety, dict) and safety.get("decision") == "require_confirmation":
            reason = str(safety.get("explanation") or "no reason given")
            return {"action": "ask_user", "question": f"The model asks you to confirm its next step ({name}): {reason}"}
        args = {k: v for k, v in args.items() if k != "safety_decision"}
        if name in ("click_at", "click"):
            return {"action": "click_at", **self._at(args)}
        if name == "double_click":
            return {"action": "double_click_at", **self._at(args)}
        if name == "right_click":
            return {"action": "right_click", **self._at(args)}
        if name in ("hover_at", "move"):
            return {"action": "move_to", **self._at(args)}
        if name == "drag_and_drop":
            return {"action": "drag_at", **self._at(args), "to_x": self._x(args.get("destination_x")), "to_y": self._y(args.get("destination_y"))}
        if name in ("scroll_at", "scroll"):
            return self._scroll(args)
        if name == "scroll_document":
            return {"action": "scroll", "direction": args.get("direction")}
        if name == "type_text_at":
            # Cleared first unless it says otherwise (the reference implementation's default).
            kind = "fill" if args.get("clear_before_typing", True) else "type"
            return {"action": kind, "text": args.get("text"), **self._at(args), **_enter(args)}
        if name == "type":
            return {"action": "type", "text": args.get("text"), **_enter(args)}
        if name in ("key_combination", "hotkey", "press_key"):
            keys = args.get("keys", args.get("key"))
            combo = "+".join(str(k) for k in keys) if isinstance(keys, list) else str(keys or "")
            return {"action": "press", "key": waymark_key(combo)}
        if name == "navigate":
            return {"action": "navigate", "url": args.get("url")}
        if name == "search":
            # The reference implementation's search opens the search engine's start page.
            return {"action": "navigate", "url": "https://www.google.com/"}
        if name == "go_back":
            return {"action": "back"}
        if name == "go_forward":
            return {"action": "forward"}
        if name == "wait_5_seconds":
            return {"action": "wait", "ms": 5000}
        if name == "wait":
            return {"action": "wait", "ms": _wait_ms(args.get("seconds", 1))}
        if name in ("open_web_browser", "take_screenshot"):
            # The browser is open and a fresh screenshot comes with every turn: nothing to do.
            return {"action": "wait", "ms": 0}
        return {"action": name, **args}


def _enter(args: dict[str, Any]) -> dict[str, Any]:
    """Gemini's `press_enter` kept for the executor: one turn is one action, so Enter is the model's next one."""
    return {"press_enter": True} if args.get("press_enter") else {}


def anthropic_action(args: dict[str, Any]) -> dict[str, Any]:
    """The `act` arguments for one input of Anthropic's computer tool (computer_20250124 and
    computer_20251124: `left_click`, `double_click`, `mouse_move`, `left_click_drag`, `scroll`,
    `key`, `type`, `wait`, `screenshot`...); its coordinates are the screenshot's pixels."""
    kind = args.get("action")
    coordinate = args.get("coordinate")
    at = _point(*coordinate) if isinstance(coordinate, list) and len(coordinate) == 2 else {}
    if kind == "left_click" and at:
        return {"action": "click_at", **at}
    if kind == "double_click" and at:
        return {"action": "double_click_at", **at}
    if kind == "mouse_move" and at:
        return {"action": "move_to", **at}
    if kind == "right_click" and at:
        return {"action": "right_click", **at}
    if kind == "left_click_drag" and at:
        start = args.get("start_coordinate")
        if isinstance(start, list) and len(start) == 2:
            return {"action": "drag_at", **_point(*start), "to_x": at["x"], "to_y": at["y"]}
    if kind == "scroll" and at:
        notches = args.get("scroll_amount")
        amount = {"amount": int(notches) * WHEEL_NOTCH_PX} if isinstance(notches, (int, float)) and notches > 0 else {}
        return {"action": "scroll_at", **at, "direction": args.get("scroll_direction"), **amount}
    if kind == "key":
        return {"action": "press", "key": waymark_key(str(args.get("text") or ""))}
    if kind == "type":
        return {"action": "type", "text": args.get("text")}
    if kind == "wait":
        return {"action": "wait", "ms": _wait_ms(args.get("duration", 1))}
    if kind == "screenshot":
        return {"action": "wait", "ms": 0}
    # A click with no coordinate means where the pointer is, which Waymark does not track.
    return {"action": str(kind or "computer"), **{k: v for k, v in args.items() if k != "action"}}


#: OpenAI's computer-use tool (Responses API) and the environment Waymark's screenshots show.
OPENAI_TOOL_TYPE = "computer_use_preview"
OPENAI_ENVIRONMENT = "browser"
#: How long OpenAI's `wait` (it has no duration) waits: the pause OpenAI's samples use.
OPENAI_WAIT_MS = 2000


def openai_action(action: dict[str, Any], safety_checks: list[Any] | None = None) -> dict[str, Any]:
    """The `act` arguments for one action of OpenAI's computer_call (`click`, `double_click`,
    `move`, `drag`, `scroll`, `keypress`, `type`, `wait`, `screenshot`); its coordinates are the
    screenshot's pixels, its scroll distance too (`amount_px`). A call with pending safety checks
    becomes a question for the user, as Gemini's confirmations do."""
    if safety_checks:
        reasons = "; ".join(str(c.get("message") or c.get("code") or "a safety check") for c in safety_checks if isinstance(c, dict))
        return {"action": "ask_user", "question": f"The model asks you to confirm its next step ({action.get('type')}): {reasons or 'a safety check'}"}
    kind = action.get("type")
    at = _point(action.get("x"), action.get("y"))
    if kind == "click":
        button = action.get("button", "left")
        if button == "left":
            return {"action": "click_at", **at}
        if button == "right":
            return {"action": "right_click", **at}
        return {"action": f"{button}_click", **at}
    if kind == "double_click":
        return {"action": "double_click_at", **at}
    if kind == "move":
        return {"action": "move_to", **at}
    if kind == "drag":
        path = [p for p in action.get("path") or [] if isinstance(p, dict)]
        if len(path) >= 2:
            return {"action": "drag_at", "x": path[0].get("x"), "y": path[0].get("y"), "to_x": path[-1].get("x"), "to_y": path[-1].get("y")}
    if kind == "scroll":
        dx, dy = action.get("scroll_x") or 0, action.get("scroll_y") or 0
        if isinstance(dx, (int, float)) and isinstance(dy, (int, float)) and (dx or dy):
            direction = ("right" if dx > 0 else "left") if abs(dx) > abs(dy) else ("down" if dy > 0 else "up")
            return {"action": "scroll_at", **at, "direction": direction, "amount_px": int(max(abs(dx), abs(dy)))}
    if kind == "keypress":
        keys = action.get("keys") or []
        return {"action": "press", "key": waymark_key("+".join(str(k) for k in keys))}
    if kind == "type":
        return {"action": "type", "text": action.get("text")}
    if kind == "wait":
        return {"action": "wait", "ms": OPENAI_WAIT_MS}
    if kind == "screenshot":
        return {"action": "wait", "ms": 0}
    return {"action": str(kind or "computer"), **{k: v for k, v in action.items() if k != "type"}}
