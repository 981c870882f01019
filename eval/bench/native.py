"""Native-messaging round trips through the real extension and the real host, side by side
with the floor: a trivial Python echo host registered in the same browser profile."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from waymark.eval.bench.bound import SectionCut, bound_of
from waymark.eval.bench.markdown import pair, ratio, table
from waymark.host.core.stats import spread
from waymark.host.extension import extension_origin
from waymark.host.registration import host_manifest

PEER_NAME = "dev.waymark.bench_echo"

#: The peer: reads a frame, answers with a small ack. The least a native host can do.
PEER_SOURCE = r'''
import json, struct, sys
inp, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    header = inp.read(4)
    if len(header) < 4:
        break
    (n,) = struct.unpack("<I", header)
    body = inp.read(n)
    message = json.loads(body)
    reply = json.dumps({"id": message.get("id"), "received_chars": len(message.get("payload", ""))}).encode()
    out.write(struct.pack("<I", len(reply)) + reply)
    out.flush()
'''

BROWSER_TO_HOST_SIZES = {"1 KB": 1024, "100 KB": 100 * 1024, "1 MB": 1024 * 1024, "10 MB": 10 * 1024 * 1024}
HOST_TO_BROWSER_BYTES = 5 * 1024 * 1024

# Runs inside the service worker: time `rounds` calls of size `size` to our host and to the peer.
_MEASURE_JS = r"""
async ({size, rounds, peer}) => {
  const payload = "x".repeat(size);
  const ours = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    const r = await globalThis.waymark.call("host.echo", {payload});
    if (r.received_chars !== size) throw new Error("host lost bytes");
    ours.push(performance.now() - t);
  }
  const theirs = [];
  const port = chrome.runtime.connectNative(peer);
  let waiting = null;
  port.onMessage.addListener((m) => waiting && waiting(m));
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    const reply = await new Promise((resolve) => { waiting = resolve; port.postMessage({id: i, payload}); });
    if (reply.received_chars !== size) throw new Error("peer lost bytes");
    theirs.push(performance.now() - t);
  }
  port.disconnect();
  return {ours, theirs};
}
"""

_DOWNLOAD_JS = r"""
async ({bytes, rounds}) => {
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    const r = await globalThis.waymark.call("host.payload", {bytes});
    if (r.data.length !== bytes) throw new Error("chunked payload lost bytes");
    times.push(performance.now() - t);
  }
  return times;
}
"""


def _stats(values: list[float]) -> dict[str, float]:
    return spread(values, suffix="_ms", digits=3)


def register_peer(profile_dir: Path, folder: Path) -> None:
    """Register the echo peer in the profile beside the real host."""
    script = folder / "bench_echo_host.py"
    script.write_text(PEER_SOURCE, encoding="utf-8")
    launcher = folder / "bench-echo-host"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n", encoding="utf-8")
    launcher.chmod(0o755)
    manifest = host_manifest(launcher).model_copy(update={"name": PEER_NAME, "description": "echo peer for benchmarks"})
    hosts = profile_dir / "NativeMessagingHosts"
    hosts.mkdir(parents=True, exist_ok=True)
    (hosts / f"{PEER_NAME}.json").write_text(manifest.model_dump_json(indent=2), encoding="utf-8")
    assert extension_origin() in manifest.allowed_origins


async def run(options: dict[str, Any]) -> dict[str, Any]:
    """Measure every size; returns {"browser_to_host": [...rows], "host_to_browser": {...}}."""
    from waymark.eval.sw_handle import diagnostic_extension
    from waymark.host.control_client import Controller

    rounds = int(options.get("rounds", 20))
    bound = bound_of(options, "native")
    download: dict[str, Any] | None = None
    with tempfile.TemporaryDirectory(prefix="wm-bench-") as tmp:
        profile = Path(tmp) / "profile"
        register_peer(profile, Path(tmp))
        extension = diagnostic_extension(Path(tmp) / "extension")
        async with Controller(profile_dir=profile, extension=extension) as controller:
            assert controller.browser is not None
            worker = controller.browser.service_worker
            rows = []
            for label in bound.each(BROWSER_TO_HOST_SIZES, "sizes", "browser -> host"):
                size = BROWSER_TO_HOST_SIZES[label]
                n = rounds if size <= 1024 * 1024 else max(3, rounds // 4)
                try:
                    result = await bound.within(worker.evaluate(_MEASURE_JS, {"size": size, "rounds": n, "peer": PEER_NAME}))
                except SectionCut:
                    break
                ours, theirs = _stats(result["ours"]), _stats(result["theirs"])
                rows.append({
                    "size": label, "rounds": n,
                    "waymark": ours, "peer_echo": theirs,
                    "ratio_median": round(ours["median_ms"] / theirs["median_ms"], 2) if theirs["median_ms"] else None,
                })
            for _ in bound.each([HOST_TO_BROWSER_BYTES], "transfers", "host -> browser"):
                try:
                    times = await bound.within(worker.evaluate(_DOWNLOAD_JS, {"bytes": HOST_TO_BROWSER_BYTES, "rounds": max(3, rounds // 4)}))
                except SectionCut:
                    break
                download = {"bytes": HOST_TO_BROWSER_BYTES, **_stats(times)}
    return {"browser_to_host": rows, "host_to_browser": download}


def format_table(result: dict[str, Any]) -> str:
    """The section's rows as a plain-text table."""
    lines = ["native messaging round trip (browser -> host, median / p90 ms)",
             f"  {'size':<8} {'waymark':>18} {'echo peer':>18} {'ratio':>6}"]
    for row in result["browser_to_host"]:
        w, p = row["waymark"], row["peer_echo"]
        lines.append(f"  {row['size']:<8} {w['median_ms']:>8.2f} / {w['p90_ms']:>7.2f} {p['median_ms']:>8.2f} / {p['p90_ms']:>7.2f} {row['ratio_median']:>6}")
    h = result["host_to_browser"]
    if h:  # None when the section's bound cut it
        lines.append(f"  host -> browser {h['bytes'] // (1024 * 1024)} MB through chunks: {h['median_ms']:.1f} / {h['p90_ms']:.1f} ms")
    return "\n".join(lines)


def format_markdown(r: dict[str, Any]) -> str:
    """The section's numbers as a markdown table (the docs' tables and `waymark bench --markdown`)."""
    rows = [[f"browser → host, {row['size']}" + (f" ({row['rounds']} rounds)" if "rounds" in row else ""), pair(row["waymark"], "_ms", 2), pair(row["peer_echo"], "_ms", 2),
             ratio(row["ratio_median"])] for row in r["browser_to_host"]]
    h = r.get("host_to_browser")
    if h:
        rows.append([f"host → browser, {h['bytes'] // 2**20} MB in chunks", pair(h, "_ms", 1), "–", "–"])
    return table(["native messaging round trip, ms", "Waymark host (median / p90)", "echo host (median / p90)", "ratio"], rows)
