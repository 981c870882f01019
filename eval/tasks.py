"""Eval tasks as data: one JSON file per task under eval/suites/<suite>/, validated here.

A task's id is `<suite>/<file stem>`: the file name is the one place a task is named.
Three shapes share one model, told apart by `kind` and which fields are set:

- decision (suite `smoke`): a recorded snapshot (JSON beside the task) and the expected tool
  call, e.g. a click on the element with this role and name. No browser.
- e2e on a fixture site (suite `sites`): a start URL with `{site}` / `{other}` placeholders
  for the two loopback origins, and success predicates over the final browser state, or, for a
  task that asks something, the answer expected (`expect_data`, judged by exact match, every
  required value grounded) and the `output_schema` the agent is given.
- e2e on MiniWoB++ (suite `miniwob`): the task's page from the `miniwob` package, a seed (so
  the problem, and therefore a scripted script, is the same every run), success from the page's
  own reward.
- e2e on a real application (suite `apps`): the `app` (a name of waymark.eval.apps.APPS), the
  `start_path` on it, the user the harness logs in first (`login`, or null), and the `judge`:
  a query on the app's own database and the rows it must return after the run.
"""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from waymark.eval.apps import APPS
from waymark.host.agent.answers import check_schema
from waymark.host.core.actions import ELEMENT_ACTIONS
from waymark.host.core.targets import Target

SUITES_DIR = Path(__file__).resolve().parent / "suites"
SCRIPTS_DIR = Path(__file__).resolve().parent / "scripts"



class TaskError(ValueError):
    """A task file or a task selection is unusable; the message says which and why."""


class ExpectedCall(BaseModel):
    """The tool call a decision task expects: the action type, its target, and any fields that must match."""

    model_config = ConfigDict(extra="forbid")

    #: The action type, or the types that are all right (e.g. ["check", "click"] for a checkbox).
    type: str | list[str]
    #: The element the action must be on, matched as the verifier matches (host.core.targets).
    target: Target | None = None
    #: Fields of the action that must be equal (e.g. {"text": "ada"}, {"key": "Enter"}).
    fields: dict[str, Any] = Field(default_factory=dict)
    #: Fields whose value must contain this text, case-insensitively (e.g. {"url": "/cart"}).
    fields_contain: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _target_for_ref_actions(self) -> "ExpectedCall":
        if set(self.types()) & ELEMENT_ACTIONS and self.target is None:
            raise ValueError(f"an expected {self.type!r} needs a target")
        if self.target is not None and not self.target.model_dump(exclude_none=True):
            raise ValueError("a target needs at least one of role, name, name_contains, text_contains")
        return self

    def types(self) -> list[str]:
        """The accepted action types."""
        return [self.type] if isinstance(self.type, str) else list(self.type)


class MiniwobSpec(BaseModel):
    """Which MiniWoB++ page, which problem (seed), and what reward counts as success."""

    model_config = ConfigDict(extra="forbid")

    env: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    seed: int = 0
    #: Success when the episode ended with a raw reward (no time penalty) at least this high.
    threshold: float = 1.0
    #: The episode's own timer (ms); generous so a slow model is judged on its answer, not its pace.
    episode_ms: int = Field(default=600_000, ge=1000)


class StorageCheck(BaseModel):
    """What a page's own script keeps in Web Storage, judged on the final state only: the app's
    state behind what the page shows (the cart's products behind its count). The agent never
    sees these checks, nor can it write one."""

    model_config = ConfigDict(extra="forbid")

    area: Literal["session", "local"] = "session"
    key: str = Field(min_length=1)
    #: The value stored under `key`, parsed as JSON (null: nothing is stored).
    equals: Any


class AppJudge(BaseModel):
    """An app task's judge: the rows `sql` must return on the app's own database after the run,
    in order (write an ORDER BY). The agent never sees it."""

    model_config = ConfigDict(extra="forbid")

    sql: str = Field(min_length=1)
    expect: list[list[Any]]


class Task(BaseModel):
    """One eval task. `id` and `suite` come from the file's place under eval/suites/."""

    model_config = ConfigDict(extra="forbid")

    id: str = ""
    suite: str = ""
    kind: Literal["decision", "e2e"]
    #: What the user asks for. MiniWoB tasks may leave it empty: the page's own instruction is used.
    goal: str = ""
    #: e2e on a fixture site: the start URL, `{site}` and `{other}` are the two loopback origins.
    start_url: str | None = None
    #: decision: the recorded snapshot, a path relative to the task file.
    snapshot: str | None = None
    #: decision: the expected tool call.
    expect: ExpectedCall | None = None
    #: e2e on a fixture site: verifier predicates that must all hold on the final state.
    success: list[dict[str, Any]] = Field(default_factory=list)
    #: e2e on a fixture site: app state that must also hold on the final state (the judge's alone).
    state: list[StorageCheck] = Field(default_factory=list)
    #: e2e extraction: the JSON Schema the run's answer must match (given to the agent as its output schema).
    output_schema: dict[str, Any] | None = None
    #: e2e extraction: the answer's data, judged by exact match (and every required value grounded).
    expect_data: Any = None
    miniwob: MiniwobSpec | None = None
    #: e2e on a real application: its registry name (waymark.eval.apps.APPS).
    app: str | None = None
    #: e2e on a real application: the URL path the run starts on.
    start_path: str | None = Field(default=None, pattern=r"^/")
    #: e2e on a real application: the seeded user the harness logs in before the run (null: nobody).
    login: str | None = None
    #: e2e on a real application: the query on its database that judges the run.
    judge: AppJudge | None = None
    max_steps: int = Field(default=15, ge=1, le=200)
    #: Run in vision mode: the executor is also offered the coordinate actions (click_at, drag_at...),
    #: for canvas and SVG content that has no refs.
    coordinates: bool = False
    tags: list[str] = Field(default_factory=list)
    #: Run under the product's default policy (destructive actions and new sites with data ask,
    #: and nobody at an eval run says yes), not the eval's allow-destructive: an attack task
    #: measures what a hostile page gets past the defaults a user has.
    default_policy: bool = False
    #: The confirmations this task's user says yes to: the steps of their own task, each the start
    #: of the action line the product asks about, its refs left out (`click button "Subscribe"`).
    #: Every other question is declined, as nobody sits at an eval run.
    approve: list[str] = Field(default_factory=list)
    #: The scripted provider's script for this task, relative to eval/scripts/.
    script: str | None = None
    #: Where the task was loaded from (set by the loader).
    path: Path | None = Field(default=None, exclude=True)

    def approves(self, action_line: str) -> bool:
        """Whether this task's user says yes to a confirmation of `action_line` (`click [2] button "Subscribe"`)."""
        line = re.sub(r"\[\d+\] ", "", action_line)
        return any(line.startswith(step) for step in self.approve)

    @model_validator(mode="after")
    def _consistent(self) -> "Task":
        if self.kind == "decision":
            if not (self.snapshot and self.expect):
                raise ValueError("a decision task needs `snapshot` and `expect`")
            if not self.goal:
                raise ValueError("a decision task needs a `goal`")
        elif self.app is not None:
            self._consistent_app()
        else:
            if self.start_path or self.login or self.judge:
                raise ValueError("`start_path`, `login` and `judge` belong to an app task (set `app`)")
            if self.miniwob is None and not (self.start_url and (self.success or self.expect_data is not None)):
                raise ValueError("an e2e task needs `start_url` and `success` predicates or `expect_data`, or `miniwob`")
            if self.output_schema is not None:
                check_schema(self.output_schema)
            if self.miniwob is None and not self.goal:
                raise ValueError("a fixture-site task needs a `goal`")
        return self

    def _consistent_app(self) -> None:
        if self.app not in APPS:
            raise ValueError(f"unknown app {self.app!r}; known apps: {', '.join(sorted(APPS))}")
        if not (self.start_path and self.judge and self.goal):
            raise ValueError("an app task needs `start_path`, `judge` and a `goal`")
        if self.start_url or self.success or self.state or self.miniwob or self.expect_data is not None:
            raise ValueError("an app task is judged by its `judge` query alone: no `start_url`, `success`, `state`, "
                             "`expect_data` or `miniwob`")
        if self.login is not None and self.login not in APPS[self.app].users:
            raise ValueError(f"{self.app} has no seeded user {self.login!r}; known: {', '.join(sorted(APPS[self.app].users))}")

    def snapshot_path(self) -> Path:
        """The recorded snapshot of a decision task."""
        if self.path is None or self.snapshot is None:
            raise TaskError(f"{self.id}: no snapshot")
        return (self.path.parent / self.snapshot).resolve()

    def load_snapshot(self) -> dict[str, Any]:
        """The recorded snapshot (JSON form) of a decision task."""
        path = self.snapshot_path()
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise TaskError(f"{self.id}: cannot read snapshot {path}: {exc}") from exc

    def script_path(self) -> Path | None:
        """The scripted provider's script for this task, if it has one: in the `scripts/` folder
        beside the task's own file when there is one there (a suite kept outside the package),
        else under eval/scripts/."""
        if not self.script:
            return None
        beside = own_folder(self.path, "scripts")
        return ((beside if beside and (beside / self.script).is_file() else SCRIPTS_DIR) / self.script).resolve()

    def resolved_start_url(self, site: str, other: str) -> str:
        """The start URL with the two loopback origins filled in."""
        if not self.start_url:
            raise TaskError(f"{self.id}: no start_url")
        return self.start_url.replace("{site}", site.rstrip("/")).replace("{other}", other.rstrip("/"))


def own_folder(task_file: Path | None, name: str) -> Path | None:
    """The folder `name` beside a task file's suite folder (`<suite>/name`), if it exists: where a
    suite kept outside the package holds its scripts and its sites."""
    folder = task_file.parent / name if task_file is not None else None
    return folder if folder is not None and folder.is_dir() else None


def suite_names(root: Path = SUITES_DIR) -> list[str]:
    """Every suite: the folders under `root` (eval/suites/) that hold task files."""
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.json")))


def load_task(path: Path, suite: str) -> Task:
    """Read and validate one task file; raises TaskError naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TaskError(f"{path}: not readable JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise TaskError(f"{path}: a task file holds one JSON object")
    for key in ("id", "suite"):
        if key in data:
            raise TaskError(f"{path}: `{key}` comes from the file's place, do not set it")
    try:
        task = Task.model_validate(data)
    except ValidationError as exc:
        raise TaskError(f"{path}: {exc}") from exc
    task.id = f"{suite}/{path.stem}"
    task.suite = suite
    task.path = path
    script = task.script_path()
    if script is not None and not script.is_file():
        raise TaskError(f"{path}: script {task.script} not found under {path.parent / 'scripts'} or {SCRIPTS_DIR}")
    return task


def load_suite(suite: str, patterns: str | list[str] | None = None, root: Path = SUITES_DIR) -> list[Task]:
    """The tasks of a suite, sorted by id, optionally only those whose id or stem matches one of
    the globs (a comma-separated string or a list)."""
    folder = root / suite
    if not folder.is_dir() or not any(folder.glob("*.json")):
        known = ", ".join(suite_names(root)) or "none"
        raise TaskError(f"unknown suite {suite!r}; known suites: {known}")
    tasks = [load_task(path, suite) for path in sorted(folder.glob("*.json"))]
    if isinstance(patterns, str):
        patterns = [patterns]
    globs = [g.strip() for p in patterns or [] for g in p.split(",") if g.strip()]
    if globs:
        for glob in globs:
            if not any(_matches(t, glob) for t in tasks):
                raise TaskError(f"no task of suite {suite!r} matches {glob!r}")
        tasks = [t for t in tasks if any(_matches(t, glob) for glob in globs)]
    return tasks


def _matches(task: Task, glob: str) -> bool:
    return fnmatch.fnmatchcase(task.id, glob) or fnmatch.fnmatchcase(task.id.split("/", 1)[1], glob)


def shard(tasks: list[Task], index: int, count: int) -> list[Task]:
    """Shard `index` of `count` (1-based) of tasks sorted by id: every n-th task, so shards differ
    in size by at most one and the same selection always splits the same way."""
    if count < 1 or not 1 <= index <= count:
        raise TaskError(f"shard {index}/{count}: need 1 <= i <= n")
    return sorted(tasks, key=lambda t: t.id)[index - 1 :: count]


def parse_shard(text: str) -> tuple[int, int]:
    """Parse `i/n` (e.g. `2/4`)."""
    head, sep, tail = text.partition("/")
    try:
        if not sep:
            raise ValueError
        return int(head), int(tail)
    except ValueError:
        raise TaskError(f"--shard takes i/n (e.g. 2/4), not {text!r}") from None
