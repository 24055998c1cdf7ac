"""Verifying the audit log: every entry's hash, its link to the one before, no gap, from the
first entry ever (or the anchor retention left) to the head."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bridge.store.approval_records import GENESIS, AuditEntry
from bridge.store.protocol import Store

PAGE = 1000


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Whether the chain holds; if not, the first broken entry's `seq` and what is wrong."""

    ok: bool
    entries: int
    broken_at: int | None = None
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "entries": self.entries, "brokenAt": self.broken_at,
                "problem": self.problem}


class ChainCheck:
    """Feed entries in `seq` order; the first break is kept (later ones follow from it)."""

    def __init__(self, anchor: tuple[int, str] | None) -> None:
        self.seq, self.hash = anchor if anchor is not None else (0, GENESIS)
        self.count = 0
        self.broken: tuple[int, str] | None = None

    def feed(self, entries: Iterable[AuditEntry]) -> None:
        for entry in entries:
            if self.broken is None:
                self.broken = self._problem(entry)
            self.count += 1
            self.seq, self.hash = entry.seq, entry.hash

    def _problem(self, entry: AuditEntry) -> tuple[int, str] | None:
        if entry.seq != self.seq + 1:
            return entry.seq, (f"Entry {entry.seq} follows entry {self.seq}: entries "
                               f"{self.seq + 1}..{entry.seq - 1} are missing.")
        if entry.prev != self.hash:
            return entry.seq, (f"Entry {entry.seq} does not link to the entry before it (its "
                               "prev is not that entry's hash): the chain was cut or reordered.")
        if entry.expected_hash() != entry.hash:
            return entry.seq, (f"Entry {entry.seq} does not match its hash: it was changed "
                               "after it was written.")
        return None

    def report(self) -> AuditReport:
        if self.broken is None:
            return AuditReport(True, self.count)
        return AuditReport(False, self.count, self.broken[0], self.broken[1])


def check_chain(entries: Iterable[AuditEntry],
                anchor: tuple[int, str] | None = None) -> AuditReport:
    """Verify entries already read (an export, say) from `anchor` (or the beginning)."""
    check = ChainCheck(anchor)
    check.feed(entries)
    return check.report()


async def verify(store: Store) -> AuditReport:
    """Read the whole log a page at a time and verify it."""
    check = ChainCheck(await store.audit_anchor())
    after = 0
    while True:
        page = await store.audit_entries(after, PAGE)
        check.feed(page)
        if len(page) < PAGE:
            return check.report()
        after = page[-1].seq
