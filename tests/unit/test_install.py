"""Registering the host into a browser profile, and `waymark doctor` on the result."""

import json
import os
import subprocess
import sys

from waymark.host.extension import extension_origin


def waymark(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "waymark.host", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def test_install_host_registers_a_manifest_that_allows_only_our_extension(tmp_path):
    done = waymark("install-host", "--user-data-dir", str(tmp_path), "--launcher-dir", str(tmp_path / "bin"))
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "NativeMessagingHosts" / "dev.waymark.host.json").read_text())
    assert manifest["name"] == "dev.waymark.host"
    assert manifest["type"] == "stdio"
    assert manifest["allowed_origins"] == [extension_origin()]
    assert os.path.isabs(manifest["path"]) and os.access(manifest["path"], os.X_OK)
    assert "Load unpacked" in done.stdout


def test_doctor_reports_a_healthy_registration(tmp_path):
    waymark("install-host", "--user-data-dir", str(tmp_path), "--launcher-dir", str(tmp_path / "bin"))
    done = waymark("doctor", "--user-data-dir", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "healthy" in done.stdout
    assert extension_origin() in done.stdout


def test_doctor_fails_when_the_launcher_is_broken(tmp_path):
    waymark("install-host", "--user-data-dir", str(tmp_path), "--launcher-dir", str(tmp_path / "bin"))
    (tmp_path / "bin" / "waymark-native-host").chmod(0o644)
    done = waymark("doctor", "--user-data-dir", str(tmp_path))
    assert done.returncode == 1
    assert "BROKEN" in done.stdout and "not executable" in done.stdout


def test_doctor_fails_when_nothing_is_registered(tmp_path):
    done = waymark("doctor", "--user-data-dir", str(tmp_path))
    assert done.returncode == 1
    assert "not registered" in done.stdout


def test_uninstall_removes_what_install_wrote(tmp_path):
    waymark("install-host", "--user-data-dir", str(tmp_path), "--launcher-dir", str(tmp_path / "bin"))
    done = waymark("install-host", "--uninstall", "--user-data-dir", str(tmp_path), "--launcher-dir", str(tmp_path / "bin"))
    assert done.returncode == 0
    assert not (tmp_path / "NativeMessagingHosts" / "dev.waymark.host.json").exists()
    assert not (tmp_path / "bin" / "waymark-native-host").exists()


def test_reinstalling_is_harmless(tmp_path):
    for _ in range(2):
        assert waymark("install-host", "--user-data-dir", str(tmp_path), "--launcher-dir", str(tmp_path / "bin")).returncode == 0
    assert waymark("doctor", "--user-data-dir", str(tmp_path)).returncode == 0
