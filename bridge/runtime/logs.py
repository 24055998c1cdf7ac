"""One log format for the whole process: structlog's, also for the libraries' stdlib lines.

Readable console lines on a terminal, JSON lines otherwise. A library's line goes through the
same renderer with its logger's name; its traceback is cut to the exception's one line (the
library's internals mean nothing to an operator), and lines that are noise here are dropped."""

from __future__ import annotations

import logging
import sys

import structlog
from structlog.types import EventDict, Processor, WrappedLogger

NOISE = (
    ("discord.client", "PyNaCl is not installed"),  # voice support, which askbridge never uses
    ("nio.", "Timed out, sleeping for"),  # nio's own retry after a /sync timeout, said as a warning
    ("nio.", "Error validating response"),  # an error answer checked against the success schema
)
"""(logger name prefix, message prefix) of library lines that say nothing an operator can use."""


def is_noise(record: logging.LogRecord) -> bool:
    message = record.getMessage()
    return any(record.name.startswith(name) and message.startswith(text) for name, text in NOISE)


def _one_line_error(_: WrappedLogger, __: str, event: EventDict) -> EventDict:
    """A library's exception as `error` (type and message), never its traceback."""
    exc_info = event.pop("exc_info", None)
    if exc_info:
        exc = exc_info[1] if isinstance(exc_info, tuple) else sys.exc_info()[1]
        if isinstance(exc, BaseException):
            event["error"] = f"{type(exc).__name__}: {exc}"
    return event


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not is_noise(record)


def configure(level: str = "info", json_output: bool | None = None) -> None:
    if json_output is None:
        json_output = not sys.stderr.isatty()
    renderer: Processor = (
        structlog.processors.JSONRenderer() if json_output else structlog.dev.ConsoleRenderer()
    )
    stamped: list[Processor] = [structlog.processors.add_log_level,
                                structlog.processors.TimeStamper(fmt="iso", utc=True)]
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, *stamped,
                    structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        # Each logger is assembled once, on its first line, not again for every line: the
        # hot paths log a few lines per question. (Only the CLI configures; tests never do.)
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *stamped, _one_line_error],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer]))
    handler.addFilter(_Quiet())
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    # httpx logs request URLs at INFO, and Telegram's carry the bot token: never let them through.
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
