"""Eval runs keep their traces apart from the user's own runs: `waymark trace show latest` and the
side panel's way back to a run find the user's last run, never an eval task's."""

from __future__ import annotations

from pathlib import Path

from waymark.eval.report import read_rows
from waymark.eval.runner import RunConfig, run_suite
from waymark.host.agent.trace import TraceNotFound, find_run
from waymark.host.core.paths import eval_runs_dir, runs_dir
from waymark.providers.spec import ModelSpec


async def test_an_eval_runs_trace_is_kept_under_eval_runs_not_among_the_users_runs(tmp_path: Path):
    config = RunConfig(suite="sites", executor=ModelSpec.make("scripted", "scripted"), out=tmp_path / "sites.jsonl", tasks=["login-sign-in"])
    await run_suite(config)
    (row,) = read_rows(config.out)

    trace = Path(row.trace_dir)
    assert trace.parent == eval_runs_dir() and (trace / "trace.jsonl").is_file()
    assert not (runs_dir() / trace.name).exists()
    try:
        latest = find_run("latest")
    except TraceNotFound:
        return  # no run of the user's yet: nothing an eval run could have shadowed
    assert latest.parent == runs_dir() and latest.name != trace.name
