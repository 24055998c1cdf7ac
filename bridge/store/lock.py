"""One server per SQLite file: `serve` holds a lock file beside the database while it runs.

SQLite serves one process's writes well and two processes' badly (each would arm its own
deadlines, reminders and long connections, and answer races only through the file), so a
second `askbridge serve` on the same file refuses to start. The lock is the kernel's (flock),
so a killed server leaves nothing to clean up: the next start takes it at once."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from bridge.runtime.config import BridgeConfig, ConfigError


class StoreLock:
    """Held from `acquire()` until `release()` or the end of the process."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @classmethod
    def for_config(cls, config: BridgeConfig) -> StoreLock | None:
        """The lock for the config's SQLite file; None for PostgreSQL (replicas are its job)."""
        if config.store.url or config.store_path == ":memory:":
            return None
        return cls(Path(config.store_path + ".lock"))

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ConfigError(
                f"Another askbridge is already serving {self.path.with_suffix('')} (it holds "
                f"{self.path}). One SQLite file serves one server: stop the other one, give "
                "this one its own [store] path, or use [store] url = \"postgresql://…\" to run "
                "replicas.") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())  # for a person looking: who holds it
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None
