"""Where workflows are kept: one JSON file per workflow in `<config>/workflows/`, user-only."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from waymark.host.core.paths import config_dir, private_dir
from waymark.host.workflows.model import (
    NAME_PATTERN,
    Workflow,
    WorkflowInvalid,
    validate,
)

SUFFIX = ".json"


class WorkflowNotFound(LookupError):
    """No saved workflow has that name."""


class WorkflowExists(FileExistsError):
    """A workflow of that name is saved already (save again with replace)."""


def workflows_dir() -> Path:
    """The folder of saved workflows ($WAYMARK_CONFIG_DIR/workflows or the platform's config folder)."""
    return config_dir() / "workflows"


def path_of(name: str) -> Path:
    """The file a workflow of this name lives in (the name is checked: no path may escape the folder)."""
    if not re.fullmatch(NAME_PATTERN, name):  # `$` alone would let a trailing newline through
        raise WorkflowInvalid(f"field name: {name!r} is not a workflow name (lowercase letters, digits, - and _, up to 63)")
    return workflows_dir() / f"{name}{SUFFIX}"


def now() -> str:
    """The time stamps of workflow files: UTC, ISO 8601."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def write(workflow: Workflow, *, replace: bool = False) -> Path:
    """Save a workflow (validated as it would be loaded); refuses to overwrite unless `replace`."""
    path = path_of(workflow.name)
    if path.exists() and not replace:
        raise WorkflowExists(f"a workflow named {workflow.name!r} exists already ({path})")
    data = workflow.model_dump(mode="json", exclude_none=True)
    validate(data)
    private_dir(path.parent)
    temp = path.with_suffix(".tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    os.replace(temp, path)
    return path


def load(name: str) -> Workflow:
    """A saved workflow; WorkflowNotFound or WorkflowInvalid (naming the step and field) otherwise."""
    path = path_of(name)
    if not path.exists():
        raise WorkflowNotFound(f"no workflow named {name!r} in {path.parent}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise WorkflowInvalid(f"{path}: not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    try:
        return validate(data)
    except WorkflowInvalid as exc:
        raise WorkflowInvalid(f"{path}: {exc}") from None


def names() -> list[str]:
    """The names of the saved workflows, sorted."""
    folder = workflows_dir()
    return sorted(p.stem for p in folder.glob(f"*{SUFFIX}")) if folder.exists() else []


def listing() -> list[dict[str, object]]:
    """One line of facts per saved workflow (a file that does not load says why instead)."""
    out: list[dict[str, object]] = []
    for name in names():
        try:
            wf = load(name)
        except WorkflowInvalid as exc:
            out.append({"name": name, "error": str(exc)})
            continue
        out.append({"name": wf.name, "description": wf.description, "task": wf.task, "start_url": wf.start_url,
                    "steps": len(wf.steps), "parameters": [p.model_dump() for p in wf.parameters], "updated": wf.updated,
                    "reviewed": wf.reviewed, "answer_fields": [v.path for v in wf.answer.values] if wf.answer else []})
    return out


def delete(name: str) -> Path:
    """Delete a saved workflow; WorkflowNotFound when there is none."""
    path = path_of(name)
    if not path.exists():
        raise WorkflowNotFound(f"no workflow named {name!r} in {path.parent}")
    path.unlink()
    return path
