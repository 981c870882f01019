"""The kinds of the messages the extension's service worker sends its content scripts: named
once here, generated into extension/shared/actions.js (the service worker's modules) and
extension/content/kinds.js (the content scripts, classic scripts that cannot import)."""

from __future__ import annotations

#: Constant name -> message kind. Every kind starts with `wm:`; content/core.js ignores others.
CONTENT_KINDS: dict[str, str] = {
    "SNAPSHOT": "wm:snapshot",
    "FRAMES": "wm:frames",
    "REFINFO": "wm:refinfo",
    "MARK_REFS": "wm:mark-refs",
    "ACT_PREPARE": "wm:act:prepare",
    "ACT_GUARD_RESULT": "wm:act:guard-result",
    "ACT_GUARD_MOVED": "wm:act:guard-moved",
    "ACT_HIT_FRAME": "wm:act:hit-frame",
    "ACT_PERFORM": "wm:act:perform",
    "ACT_CARET": "wm:act:caret",
    "ACT_SELECT": "wm:act:select",
    "ACT_CHECKED": "wm:act:checked",
    "ACT_FOCUS": "wm:act:focus",
    "ACT_SCROLL": "wm:act:scroll",
    "ACT_EXTRACT": "wm:act:extract",
    "ACT_LOCATION": "wm:act:location",
    # upload_file, select_text, the clipboard presses and custom selects (content/forms.js)
    "ACT_UPLOAD_TARGET": "wm:act:upload-target",
    "ACT_UPLOAD_DONE": "wm:act:upload-done",
    "ACT_SELECT_TEXT": "wm:act:select-text",
    "ACT_READ_SELECTION": "wm:act:read-selection",
    "ACT_EDIT_SELECTION": "wm:act:edit-selection",
    "ACT_FIND_OPTION": "wm:act:find-option",
    "ACT_OPTION_WATCH": "wm:act:option-watch",
    "ACT_OPTION_TAKEN": "wm:act:option-taken",
    # drag, right_click and the pointer at screenshot coordinates (content/pointer.js)
    "ACT_HIT_POINT": "wm:act:hit-point",
    "ACT_POINT_PERFORM": "wm:act:point-perform",
    "ACT_DRAG_WATCH": "wm:act:drag-watch",
    "ACT_DRAG_STARTED": "wm:act:drag-started",
    "ACT_WHEEL_BEGIN": "wm:act:wheel-begin",
    "ACT_WHEEL_END": "wm:act:wheel-end",
    "ACT_MARK_SECRET": "wm:act:mark-secret",
    "SETTLE_QUIET": "wm:settle:quiet",
    #: The service worker turns a frame's recorder on or off (content/recorder.js).
    "RECORD_ARM": "wm:record:arm",
    #: A recorder asks whether its tab is being recorded, and reports each step (content -> service worker).
    "RECORD_ASK": "wm:record:ask",
    "RECORD_STEP": "wm:record:step",
    #: The service worker asks a recorded tab's frames for the answer the user marks (selected text, or the next element clicked).
    "RECORD_MARK": "wm:record:mark",
    #: A recorded frame reports a JavaScript dialog opening and the answer the user gave it (content -> service worker).
    "RECORD_DIALOG": "wm:record:dialog",
}
