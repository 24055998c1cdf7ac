"""`python -m bench.profiled OUT serve --config …`: `askbridge` under cProfile, dumped to OUT-<pid>.prof.

uvicorn re-raises SIGTERM after its graceful shutdown; the handler installed here turns that into
a normal exit so the profile is written.
"""

from __future__ import annotations

import cProfile
import os
import signal
import sys
from types import FrameType

from bridge.cli.command import main


def _exit(signum: int, _: FrameType | None) -> None:
    raise SystemExit(0)


def run() -> None:
    out, argv = sys.argv[1], sys.argv[2:]
    signal.signal(signal.SIGTERM, _exit)
    profile = cProfile.Profile()
    profile.enable()
    try:
        main(argv)
    except SystemExit:
        pass
    finally:
        profile.disable()
        profile.dump_stats(f"{out}-{os.getpid()}.prof")


if __name__ == "__main__":
    run()
