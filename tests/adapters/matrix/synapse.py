"""One real Synapse homeserver per test process: SQLite, 127.0.0.1, no federation, no open signup.

Started lazily by the first test that needs it (the session fixture, or the contract suite's
Matrix rig) and stopped, by its own PID, when the process exits. If it cannot start, every test
that needs it fails with the reason and Synapse's last log lines; only
`ASKBRIDGE_TEST_MATRIX=off` turns the Matrix tests into (reported) skips.
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import hmac
import importlib.util
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.harness import free_port

SERVER_NAME = "test.local"
START_TIMEOUT = 90.0
_GENEROUS = {"per_second": 1000, "burst_count": 1000}


def matrix_off() -> bool:
    return os.environ.get("ASKBRIDGE_TEST_MATRIX", "").lower() == "off"


def _config(folder: Path, port: int, secret: str) -> dict[str, Any]:
    return {
        "server_name": SERVER_NAME,
        "pid_file": str(folder / "hs.pid"),
        "listeners": [{"port": port, "bind_addresses": ["127.0.0.1"], "type": "http",
                       "tls": False, "x_forwarded": False,
                       "resources": [{"names": ["client"], "compress": False}]}],
        "database": {"name": "sqlite3", "args": {"database": str(folder / "hs.db")}},
        "media_store_path": str(folder / "media"),
        "signing_key_path": str(folder / "signing.key"),
        "registration_shared_secret": secret,
        "macaroon_secret_key": secrets.token_hex(16),
        "form_secret": secrets.token_hex(16),
        "report_stats": False,
        "bcrypt_rounds": 4,  # logins in milliseconds: every test logs the bot in afresh
        "enable_registration": False,
        "trusted_key_servers": [],
        "suppress_key_server_warning": True,
        "federation_domain_whitelist": [],
        "presence": {"enabled": False},
        "url_preview_enabled": False,
        "rc_message": _GENEROUS,
        "rc_registration": _GENEROUS,
        "rc_login": {"address": _GENEROUS, "account": _GENEROUS, "failed_attempts": _GENEROUS},
        "rc_joins": {"local": _GENEROUS, "remote": _GENEROUS},
        "rc_invites": {"per_room": _GENEROUS, "per_user": _GENEROUS, "per_issuer": _GENEROUS},
        "rc_admin_redaction": _GENEROUS,
        "rc_3pid_validation": _GENEROUS,
        "rc_room_creation": _GENEROUS,
        "rc_joins_per_room": _GENEROUS,
        "rc_third_party_invite": _GENEROUS,
        "rc_profile": _GENEROUS,
    }


@dataclass
class User:
    user_id: str
    password: str
    token: str


@dataclass
class Synapse:
    """A running homeserver and the client-API calls the tests make as its users."""

    url: str
    secret: str
    folder: Path
    process: subprocess.Popen[bytes]
    users: dict[str, User] = field(default_factory=dict)

    def http(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30, trust_env=False)

    def register(self, name: str, admin: bool = False) -> User:
        """A user by shared secret (the admin API), logged in once for a token."""
        password = secrets.token_urlsafe(12)
        with self.http() as http:
            nonce = http.get("/_synapse/admin/v1/register").json()["nonce"]
            mac = hmac.new(self.secret.encode(), digestmod=hashlib.sha1)
            mac.update(b"\x00".join([nonce.encode(), name.encode(), password.encode(),
                                     b"admin" if admin else b"notadmin"]))
            made = http.post("/_synapse/admin/v1/register", json={
                "nonce": nonce, "username": name, "password": password, "admin": admin,
                "mac": mac.hexdigest()})
            made.raise_for_status()
            body = made.json()
        user = User(body["user_id"], password, body["access_token"])
        self.users[name] = user
        return user

    def login(self, name: str) -> str:
        """A fresh access token (a new device): each bridge in a test gets its own."""
        user = self.users[name]
        with self.http() as http:
            got = http.post("/_matrix/client/v3/login", json={
                "type": "m.login.password", "password": user.password,
                "identifier": {"type": "m.id.user", "user": user.user_id}})
            got.raise_for_status()
            return str(got.json()["access_token"])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def _log_tail(folder: Path, lines: int = 25) -> str:
    try:
        text = (folder / "synapse.log").read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def _wait_ready(url: str, process: subprocess.Popen[bytes], folder: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    with httpx.Client(timeout=2, trust_env=False) as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"Synapse exited with code {process.returncode}:\n"
                                   f"{_log_tail(folder)}")
            try:
                if http.get(f"{url}/_matrix/client/versions").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)  # polling a child process's port; there is no event to wait on
    raise RuntimeError(f"Synapse did not answer within {START_TIMEOUT:.0f} s:\n{_log_tail(folder)}")


def _launch() -> Synapse:
    if importlib.util.find_spec("synapse") is None:
        raise RuntimeError("matrix-synapse is not installed in this environment; "
                           "run `pip install -e '.[test]'` (it is in the test extras)")
    folder = Path(tempfile.mkdtemp(prefix="askbridge-synapse-"))
    port, secret = free_port(), secrets.token_urlsafe(24)
    seed = base64.b64encode(secrets.token_bytes(32)).decode().rstrip("=")
    (folder / "signing.key").write_text(f"ed25519 a_test {seed}\n")
    # JSON is YAML: no YAML writer needed.
    (folder / "hs.yaml").write_text(json.dumps(_config(folder, port, secret)))
    log = (folder / "synapse.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "synapse.app.homeserver", "--config-path", str(folder / "hs.yaml")],
        stdout=log, stderr=subprocess.STDOUT, cwd=folder,
        env={k: v for k, v in os.environ.items() if "proxy" not in k.lower()})
    url = f"http://127.0.0.1:{port}"
    synapse = Synapse(url, secret, folder, process)
    atexit.register(synapse.stop)
    try:
        _wait_ready(url, process, folder)
    except RuntimeError:
        synapse.stop()
        raise
    for name, admin in (("askbot", False), ("person", False), ("stranger", False),
                        ("admin", True)):
        synapse.register(name, admin)
    return synapse


_lock = threading.Lock()
_started: Synapse | None = None
_failure: str | None = None


def homeserver() -> Synapse:
    """The process's homeserver, started on first use; fails the calling test if it cannot."""
    global _started, _failure
    if matrix_off():
        pytest.skip("Matrix suite NOT run: ASKBRIDGE_TEST_MATRIX=off")
    with _lock:
        if _started is None and _failure is None:
            try:
                _started = _launch()
            except (OSError, RuntimeError, httpx.HTTPError) as exc:
                _failure = f"{type(exc).__name__}: {exc}"
        if _started is None:
            pytest.fail(f"Synapse could not start, so the Matrix suite cannot run:\n{_failure}\n"
                        "(set ASKBRIDGE_TEST_MATRIX=off to skip it knowingly)", pytrace=False)
        return _started
