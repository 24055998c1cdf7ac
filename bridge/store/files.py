"""The store's files are private: the database, its -wal and -shm are 0600 in a 0700 folder.

They hold the VAPID private key, push subscriptions and free-text answers, which may be secrets.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import structlog

log = structlog.get_logger("askbridge.store")
FILE_MODE = 0o600
DIR_MODE = 0o700
SIDE_FILES = ("", "-wal", "-shm", "-journal")


def private_dir(folder: Path) -> None:
    """Make a missing `folder` 0700. An existing one is the operator's (askbridge's own data
    folder is made 0700 with its credentials): it is only warned about when others may read
    it."""
    if not folder.exists():
        folder.mkdir(mode=DIR_MODE, parents=True)
        folder.chmod(DIR_MODE)  # mkdir's mode is masked by the umask
    elif folder.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning("store_folder_readable_by_others", folder=str(folder),
                    mode=oct(stat.S_IMODE(folder.stat().st_mode)),
                    fix=f"chmod 700 {folder}")


def private_database(path: Path) -> None:
    """Create the database file 0600 before SQLite opens it (SQLite gives its -wal and -shm the
    database's own mode), and tighten files an older version left more open."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    tighten(path)


def tighten(path: Path) -> None:
    for suffix in SIDE_FILES:
        side = Path(f"{path}{suffix}")
        if side.exists() and stat.S_IMODE(side.stat().st_mode) != FILE_MODE:
            side.chmod(FILE_MODE)
