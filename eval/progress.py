"""Progress of long work (`waymark bench`, `waymark eval run`) on stderr: what runs, item n of N
and the time spent, drawn by tqdm while stderr is a terminal and silent otherwise, so logs and
pipes get only the results."""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

from tqdm import tqdm

#: Seconds between redraws while nothing advances, so the elapsed time keeps moving.
TICK_S = 1.0


def shown_on(stream: TextIO | None = None, disabled: bool = False) -> bool:
    """Whether progress belongs on `stream` (stderr by default): only a terminal, and not when
    the user turned it off (--no-progress)."""
    stream = stream if stream is not None else sys.stderr
    if disabled:
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Progress:
    """One line of progress, `label: n of N unit [elapsed, note]` (or `label [elapsed, note]`
    without a total), redrawn every second; `already_s` is time spent before the line appeared.
    Drawn only when `enabled`; otherwise every method is a no-op and nothing is written."""

    def __init__(self, label: str, total: int | None, unit: str, enabled: bool, stream: TextIO | None = None,
                 already_s: float = 0.0) -> None:
        # tqdm puts ", " before a postfix: the note follows the elapsed time inside the brackets.
        counted = "{desc}: {n_fmt} of {total_fmt}{unit} [{elapsed}{postfix}]"
        self.bar: tqdm[Any] = tqdm(
            total=total, desc=label, unit=f" {unit}" if unit else "", file=stream if stream is not None else sys.stderr,
            # One line at a time, always the bottom one: position 0 keeps tqdm from stacking lines.
            disable=not enabled, leave=False, dynamic_ncols=True, mininterval=0.2, position=0,
            bar_format=counted if total is not None else "{desc} [{elapsed}{postfix}]",
        )
        self._closed = threading.Event()
        if enabled:
            self.bar.start_t -= already_s  # the elapsed time counts from the work's start, not the line's
            self.bar.refresh()
            threading.Thread(target=self._tick, name=f"progress {label}", daemon=True).start()

    def _tick(self) -> None:
        while not self._closed.wait(TICK_S):
            self.bar.refresh()

    def note(self, text: str) -> None:
        """Say what is under way now (the page, the task) without advancing."""
        self.bar.set_postfix_str(text[:60], refresh=True)

    def advance(self, note: str = "") -> None:
        """One more item done; `note` replaces the line's trailing text."""
        if note:
            self.bar.set_postfix_str(note[:60], refresh=False)
        self.bar.update(1)
        self.bar.refresh()  # items are slow (pages, tasks): each one is drawn, none throttled away

    def close(self) -> None:
        """Take the line off the terminal (the results printed after it stay)."""
        self._closed.set()
        self.bar.close()
