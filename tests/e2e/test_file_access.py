"""Local files: the extension tells the host whether it may read file: URLs (Chrome's own
answer, chrome.extension.isAllowedFileSchemeAccess), and `waymark doctor` warns when it may."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import wait_connected
from waymark.host.browsers import running

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_doctor_warns_when_the_extension_may_read_local_files(sw):
    await wait_connected(sw)
    # Chrome's answer: an extension loaded unpacked (as here, and as users install it) may.
    assert await sw.evaluate("() => chrome.extension.isAllowedFileSchemeAccess()") is True
    assert [b.file_access for b in running()] == [True]
    doctor = subprocess.run([sys.executable, "-m", "waymark.host", "doctor"], capture_output=True, text=True, env=os.environ.copy(), timeout=60)
    assert "may read local files: turn off \"Allow access to file URLs\"" in doctor.stderr
