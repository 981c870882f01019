"""The host when its channel breaks: a browser that stops reading (stdout a broken pipe) is a
browser that has gone, and the host ends cleanly instead of crashing."""

from __future__ import annotations

from waymark.host.pipe_client import HostProcess


def test_a_host_whose_stdout_breaks_exits_cleanly_without_a_crash(isolated_state):
    with HostProcess() as host:
        assert host.request({"v": 1, "type": "ping", "id": "p1"}) == {"v": 1, "type": "pong", "id": "p1"}
        assert host.proc.stdout is not None
        host.proc.stdout.close()  # the browser side stops reading: every write is now EPIPE
        host.send({"v": 1, "type": "ping", "id": "p2"})
        host.send_body(b"not json")
        # A bound against a hang, not a speed check: the full suite runs it beside busy browsers.
        assert host.proc.wait(60) == 0
        assert "Traceback" not in host.stderr_text()
        pid = host.proc.pid
    # The log is shared by every host of the test run: only this host's lines say how it ended.
    own = [line for line in (isolated_state / "state" / "host.log").read_text().splitlines() if f" {pid} " in line]
    assert own and not any("host crashed" in line for line in own)
