"""What one agent run leaves behind: its trace and the events streamed to the caller (both
redacted), the guards' findings counted by name, the evidence of a failed step, and the summary
that ends it."""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable, TypeVar

from waymark.host.agent.guards import Finding
from waymark.host.agent.redaction import Redactor
from waymark.host.agent.trace import RunSummary, TraceWriter, step_event
from waymark.host.bridge import BrowserError
from waymark.host.core.snapshot import Snapshot

log = logging.getLogger("waymark.host.agent.loop")

Emit = Callable[[str, dict[str, Any]], None]
Summary = TypeVar("Summary", bound=RunSummary)


class RunRecord:
    """The trace, the event stream and the tallies of one run (an agent run's or a workflow replay's)."""

    def __init__(self, run_id: str, redactor: Redactor, emit: Emit | None) -> None:
        self.run_id = run_id
        self.redactor = redactor
        self.trace = TraceWriter(run_id, redactor)
        self._emit_cb = emit
        #: Findings per guard name, by strength (overruled advisories are not counted again).
        self.refusals: dict[str, int] = {}
        self.advisories: dict[str, int] = {}

    def emit(self, kind: str, **data: Any) -> dict[str, Any]:
        """Trace an event and stream it to the caller (both redacted). A thumbnail is streamed
        only: the trace keeps the full screenshot as an artifact, and an image is not text to redact."""
        thumbnail = data.pop("thumbnail_b64", None)
        if kind == "step":
            data = step_event(data)
        record = self.trace.event(kind, run_id=self.run_id, **data)
        if kind == "step":
            log.info("run %s step %s %s: %s", self.run_id, record.get("step"), record.get("verdict"), record.get("action_line", ""))
        if self._emit_cb is not None:
            try:
                self._emit_cb(kind, {**record, "thumbnail_b64": thumbnail} if thumbnail else record)
            except Exception:
                log.exception("could not stream the %s event", kind)
        return record

    def found(self, record: dict[str, Any], findings: list[Finding]) -> None:
        """Add guards' findings to a step's record and count them (an overruled advisory was counted when told)."""
        record.setdefault("findings", []).extend(f.model_dump() for f in findings)
        for finding in findings:
            if not finding.overruled:
                tally = self.refusals if finding.strength == "refusal" else self.advisories
                tally[finding.guard] = tally.get(finding.guard, 0) + 1

    async def failure(self, name: str, safe: Snapshot, raw: str, shoot: Callable[[], Awaitable[Snapshot]],
                      evidence: dict[str, Any]) -> dict[str, Any]:
        """Store the evidence of a failed required step (its page as prompts saw it, the model's
        last answer, an overlay screenshot when the browser can take one); returns `evidence`
        (failed_step, reason, ...) for the replan."""
        artifacts = {"snapshot": self.trace.artifact_json(f"{name}-snapshot.json", safe.model_dump()),
                     "raw_output": self.trace.artifact_text(f"{name}-model.txt", raw)}
        try:
            shot = await shoot()
            if shot.screenshot_b64:
                artifacts["screenshot"] = self.trace.artifact_b64(f"{name}-overlay.jpg", shot.screenshot_b64)
        except BrowserError as exc:
            log.warning("no failure screenshot: %s", exc)
        self.emit("step_failed", intent=evidence["failed_step"], reason=evidence["reason"], artifacts=artifacts)
        return evidence

    def summary(self, shape: type[Summary], **fields: Any) -> Summary:
        """The run's summary in `shape` (RunSummary or a kind of it), redacted, written beside its
        trace and streamed as `finished`."""
        summary = shape(run_id=self.run_id, trace_dir=str(self.trace.dir), refusals=self.refusals, advisories=self.advisories,
                        **fields)
        summary = shape.model_validate(self.redactor.obj(summary.model_dump()))
        self.trace.summary(summary)
        self.emit("finished", **summary.model_dump(exclude={"run_id"}))
        log.info("run %s ended: %s (%s)", self.run_id, summary.outcome, self.redactor.text(summary.reason))
        return summary
