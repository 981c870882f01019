"""MiniWoB++ from the `miniwob` package's own HTML: serve it on loopback, start a seeded
episode in a page, and read the task's own reward.

Every MiniWoB++ page loads core/core.js, which keeps the episode's outcome in page globals:
`WOB_DONE_GLOBAL`, `WOB_RAW_REWARD_GLOBAL` (the task's reward without time penalty, -1..1),
`WOB_REWARD_GLOBAL` (time-scaled) and `WOB_REWARD_REASON`. An episode starts with
`core.startEpisodeReal()`, which calls the task's `genProblem()`; `Math.seedrandom(seed)`
beforehand makes the problem the same every run. The pages' globals live in the page's main
world, so they are read with Playwright's `page.evaluate`, not from the extension.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from waymark.eval.sites.serve import SiteServer
from waymark.eval.tasks import MiniwobSpec


class MiniwobUnavailable(RuntimeError):
    """The `miniwob` package is not installed, or a task names a page it does not have."""


def html_dir() -> Path:
    """The package's html/ folder (pages under miniwob/, shared scripts under core/ and common/)."""
    try:
        import miniwob
    except ImportError as exc:
        raise MiniwobUnavailable("the miniwob suite needs the `miniwob` package: pip install miniwob") from exc
    folder = Path(miniwob.__file__).resolve().parent / "html"
    if not (folder / "core" / "core.js").is_file():
        raise MiniwobUnavailable(f"the installed miniwob package has no html/core/core.js under {folder}")
    return folder


def env_names() -> list[str]:
    """Every MiniWoB++ page (task type) the package ships."""
    return sorted(p.stem for p in (html_dir() / "miniwob").glob("*.html"))


#: The task types the `miniwob` suite has no scripted task for, and why (the README lists them).
NOT_SCRIPTED: dict[str, str] = {
    "chase-circle": "the reward is the share of 10 s the pointer stays on a moving circle: it needs the pointer to follow it continuously",
    "hover-shape": "the page never ends the episode (its scoring is commented out): no reward to judge by",
    "moving-items": "circles move while the agent reads the page; each click is judged against where they are then, scored over the episode's time",
    "draw-circle": "the reward measures a round stroke; drag_at draws a straight one",
    "drag-cube": "a 3-D cube turned by drags; which drag shows which face depends on its rotation state",
    "button-delay": "the reward measures the pause between two clicks against the one asked for (within 15 %): a step's own time on a loaded machine decides it",
}


def serve() -> SiteServer:
    """A (not yet started) loopback server for the package's html/ folder."""
    return SiteServer(html_dir())


def page_url(base: str, env: str) -> str:
    """The URL of one task's page under a server started by `serve()`."""
    if not (html_dir() / "miniwob" / f"{env}.html").is_file():
        raise MiniwobUnavailable(f"the miniwob package has no task {env!r}")
    return f"{base.rstrip('/')}/miniwob/{env}.html"


class Reward(BaseModel):
    """The episode's outcome as the page reports it."""

    done: bool
    raw: float
    reward: float
    reason: str | None = None

    def passed(self, threshold: float) -> bool:
        """Success: the episode ended with a raw reward of at least `threshold`."""
        return self.done and self.raw >= threshold

    def describe(self) -> str:
        """One line for a report."""
        if not self.done:
            return "the episode did not end (no reward)"
        why = f" ({self.reason})" if self.reason not in (None, "", "null") else ""
        return f"reward {self.raw:g}{why}"


_START_JS = """
async ({seed, episodeMs}) => {
  // core.js sets up `core` at load; wait for the task script's genProblem too.
  for (let i = 0; i < 200 && (typeof core === 'undefined' || typeof genProblem === 'undefined'); i++) {
    await new Promise(r => setTimeout(r, 10));
  }
  core.EPISODE_MAX_TIME = episodeMs;
  // The episode's outcome is its first end, as MiniWoB++'s own environment takes it: a click on
  // the START cover the page shows then begins an unseeded episode and clears the globals.
  window.__waymarkEnd = null;
  if (!core.__waymarkOutcome) {
    core.__waymarkOutcome = () => ({done: !!WOB_DONE_GLOBAL, raw: Number(WOB_RAW_REWARD_GLOBAL), reward: Number(WOB_REWARD_GLOBAL),
                                    reason: WOB_REWARD_REASON == null ? null : String(WOB_REWARD_REASON)});
    const end = core.endEpisode;
    core.endEpisode = function (...args) {
      const rewarded = core.EP_TIMER !== null && window.__waymarkEnd === null;
      const result = end.apply(this, args);
      if (rewarded) window.__waymarkEnd = core.__waymarkOutcome();
      return result;
    };
  }
  Math.seedrandom(seed);
  core.startEpisodeReal();
  // MiniWoB++'s own environment shows its agents the task area alone: its DOM observation skips
  // the reward display and the canvas of click marks beside it, and its screenshot is cropped to
  // the task. Left on the page, they would give the agent the judge's reward as page text.
  core.hideDisplay();
  const marks = document.getElementById('click-canvas');
  if (marks) marks.style.display = 'none';
  for (let i = 0; i < 200 && !WOB_TASK_READY; i++) await new Promise(r => setTimeout(r, 10));
  // The task's markup fetches images as it renders (icons drawn with CSS content:url()), and an
  // icon not yet loaded has no size, so no one could see or click it: the episode is ready for
  // the agent once every image it lays out has its size and no resource has finished loading for
  // 150 ms (at most 5 s). Quiet alone is not enough on a loaded machine: a fetch still in flight
  // after 150 ms left a star icon without width.
  const drawn = () => [...document.querySelectorAll('body *')].every(e => {
    if (e.getClientRects().length === 0) return true;
    if (e instanceof HTMLImageElement) return e.complete;
    return !getComputedStyle(e).content.startsWith('url(') || e.getBoundingClientRect().width > 0;
  });
  let seen = -1, quietSince = performance.now();
  for (const start = performance.now(); performance.now() - start < 5000; ) {
    const loaded = performance.getEntriesByType('resource').length;
    if (loaded !== seen) { seen = loaded; quietSince = performance.now(); }
    else if (performance.now() - quietSince >= 150 && drawn()) break;
    await new Promise(r => setTimeout(r, 25));
  }
  return core.getUtterance();
}
"""

_REWARD_JS = """
() => window.__waymarkEnd || core.__waymarkOutcome()
"""


async def start_episode(page: Any, spec: MiniwobSpec) -> str:
    """Start a seeded episode in `page` (already on the task's URL); returns the task's instruction."""
    utterance = await page.evaluate(_START_JS, {"seed": str(spec.seed), "episodeMs": spec.episode_ms})
    if isinstance(utterance, dict):
        # The natural-language email tasks answer {"utterance": ..., "fields": ...} outside test mode.
        utterance = utterance.get("utterance")
    return str(utterance or "").strip()


async def read_reward(page: Any) -> Reward:
    """The episode's outcome from the page's own globals, as they were when it first ended (an
    episode `start_episode` began)."""
    return Reward.model_validate(await page.evaluate(_REWARD_JS))
