"""One real Dovecot IMAP server per test process, on 127.0.0.1, under a temp folder.

Started by the first test that needs it and stopped, by its own PID, when the process exits.
Plain IMAP with STARTTLS on one port, implicit TLS on another (the throwaway CA's certificate).
Each test takes a user of its own (made before Dovecot started), so each gets an empty
mailbox. Replies are put in with IMAP APPEND, as a mail server delivers them. If Dovecot
cannot start, every test that needs it fails with the reason; only `ASKBRIDGE_TEST_EMAIL=off`
turns them into reported skips.
"""

from __future__ import annotations

import atexit
import imaplib
import os
import secrets
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.adapters.email.certs import Certs, make_certs
from tests.harness import free_port

START_TIMEOUT = 20.0
BINARY = "/usr/sbin/dovecot"
POOL = 400
"""Users made before Dovecot starts: more than one test process's tests take (about 60)."""


def email_off() -> bool:
    return os.environ.get("ASKBRIDGE_TEST_EMAIL", "").lower() == "off"


def _config(folder: Path, imap: int, imaps: int, certs: Certs) -> str:
    return f"""
protocols = imap
listen = 127.0.0.1
base_dir = {folder}/run
state_dir = {folder}/state
log_path = {folder}/dovecot.log
info_log_path = {folder}/dovecot.log
auth_verbose = yes
# A refused login waits 2 s by default (against guessing); the first login of a user added a
# moment ago can be refused before Dovecot re-reads its users, and every test adds one.
auth_failure_delay = 0
ssl = yes
ssl_cert = <{certs.cert}
ssl_key = <{certs.key}
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
mail_location = maildir:{folder}/mail/%u/Maildir
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {folder}/users
}}
userdb {{
  driver = static
  args = uid=nobody gid=nogroup home={folder}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps}
  }}
}}
"""


@dataclass
class Dovecot:
    folder: Path
    imap_port: int
    imaps_port: int
    certs: Certs
    process: subprocess.Popen[bytes]
    pool: list[tuple[str, str]]
    """Users in the passwd-file since Dovecot started, not yet handed to a test."""

    def add_user(self, account: tuple[str, str] | None = None) -> tuple[str, str]:
        """A fresh user with an empty mailbox: (login, password), one of those written before
        Dovecot started; `account` is added now instead, as a user made late. A user added
        later is refused until Dovecot re-reads the passwd-file, and each refusal from
        127.0.0.1 made the next login wait seconds (its auth penalty): about 4.7 s per test,
        when every test added one."""
        with _lock:
            if account is not None or not self.pool:
                return self._append_user(account)
            login, password = self.pool.pop()
        self._mailbox(login)
        return login, password

    def _append_user(self, account: tuple[str, str] | None) -> tuple[str, str]:
        """Add a user to the passwd-file and wait until Dovecot takes it."""
        login, password = account or (f"u{secrets.token_hex(5)}", secrets.token_urlsafe(12))
        users = self.folder / "users"
        before = users.stat().st_mtime_ns if users.exists() else 0
        with users.open("a") as written:
            written.write(f"{login}:{{PLAIN}}{password}\n")
        # Dovecot re-reads the passwd-file when its modification time moves on, which it reads
        # in whole seconds: a user added within the second of the last read would stay unknown
        # (its login refused) until the file changed again. Move the time a second on each time.
        stamp = max(time.time_ns(), before + 1_000_000_000)
        os.utime(users, ns=(stamp, stamp))
        self._mailbox(login)
        self._known(login, password)
        return login, password

    def _mailbox(self, login: str) -> None:
        mail = self.folder / "mail" / login
        mail.mkdir(parents=True, exist_ok=True)
        shutil.chown(mail, "nobody", "nogroup")

    def _known(self, login: str, password: str, timeout: float = 15.0) -> None:
        """Return once Dovecot takes the new user's login (as a test waits for /healthz), so
        a test never starts against a server that has not read its user yet."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with imaplib.IMAP4("127.0.0.1", self.imap_port) as imap:
                    imap.login(login, password)
                    return
            except imaplib.IMAP4.error:
                if time.monotonic() > deadline:
                    raise AssertionError(f"Dovecot never took the login of {login}; see "
                                         f"{self.folder / 'dovecot.log'}") from None
                time.sleep(0.2)

    def append(self, login: tuple[str, str], raw: bytes, mailbox: str = "INBOX") -> None:
        """Deliver `raw` into the user's mailbox (IMAP APPEND, over STARTTLS)."""
        with imaplib.IMAP4("127.0.0.1", self.imap_port) as imap:
            imap.starttls(ssl.create_default_context(cafile=self.certs.ca))
            imap.login(*login)
            status, answer = imap.append(mailbox, "", imaplib.Time2Internaldate(time.time()), raw)
            assert status == "OK", answer

    def count(self, login: tuple[str, str], mailbox: str = "INBOX") -> int:
        with imaplib.IMAP4("127.0.0.1", self.imap_port) as imap:
            imap.login(*login)
            status, data = imap.select(mailbox, readonly=True)
            assert status == "OK", data
            return int(data[0] or 0)

    def kick(self, login: tuple[str, str]) -> None:
        """Drop every connection of the user, as a server restart or a network cut would."""
        subprocess.run(["doveadm", "-c", str(self.folder / "dovecot.conf"), "kick", login[0]],
                       check=True, capture_output=True, timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def _log_tail(folder: Path) -> str:
    try:
        return "\n".join((folder / "dovecot.log").read_text(errors="replace").splitlines()[-20:])
    except OSError:
        return "(no log)"


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            return sock.recv(64).startswith(b"* OK")
    except OSError:
        return False


def _launch() -> Dovecot:
    if not Path(BINARY).exists():
        raise RuntimeError(f"{BINARY} is missing: install Debian's dovecot-imapd "
                           "(`apt-get install -y -q dovecot-imapd`; .ci/run does it)")
    folder = Path(tempfile.mkdtemp(prefix="askbridge-dovecot-"))
    folder.chmod(0o755)  # Dovecot's mail processes run as nobody
    for sub in ("run", "state", "mail"):
        (folder / sub).mkdir()
    pool = [(f"u{secrets.token_hex(5)}", secrets.token_urlsafe(12)) for _ in range(POOL)]
    (folder / "users").write_text("".join(f"{login}:{{PLAIN}}{password}\n"
                                          for login, password in pool))
    certs = make_certs(folder / "tls")
    imap, imaps = free_port(), free_port()
    (folder / "dovecot.conf").write_text(_config(folder, imap, imaps, certs))
    process = subprocess.Popen([BINARY, "-F", "-c", str(folder / "dovecot.conf")],
                               stdout=subprocess.DEVNULL, stderr=(folder / "stderr").open("wb"))
    server = Dovecot(folder, imap, imaps, certs, process, pool)
    atexit.register(server.stop)
    deadline = time.monotonic() + START_TIMEOUT
    while not _answers(imap):
        if process.poll() is not None or time.monotonic() > deadline:
            stderr = (folder / "stderr").read_text(errors="replace")
            server.stop()
            raise RuntimeError(f"Dovecot did not answer on 127.0.0.1:{imap}:\n{stderr}\n"
                               f"{_log_tail(folder)}")
        time.sleep(0.05)  # polling a child process's port; there is no event to wait on
    return server


_lock = threading.Lock()
_started: Dovecot | None = None
_failure: str | None = None


def dovecot() -> Dovecot:
    """The process's Dovecot, started on first use; fails the calling test if it cannot."""
    global _started, _failure
    if email_off():
        pytest.skip("E-mail suite NOT run: ASKBRIDGE_TEST_EMAIL=off")
    with _lock:
        if _started is None and _failure is None:
            try:
                _started = _launch()
            except (OSError, RuntimeError) as exc:
                _failure = f"{type(exc).__name__}: {exc}"
        if _started is None:
            pytest.fail(f"Dovecot could not start, so the e-mail suite cannot run:\n{_failure}\n"
                        "(set ASKBRIDGE_TEST_EMAIL=off to skip it knowingly)", pytrace=False)
        return _started
