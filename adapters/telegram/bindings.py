"""Our own messages a reply answers a question through — force-reply asks, "still needed"
follow-ups — kept in the store, so a reply to one still answers after a restart."""

from __future__ import annotations

from bridge import AdapterState, QuestionId

Key = tuple[int | str, int]
"""(chat, message id)"""


def _stored(key: Key) -> str:
    return f"bound:{key[0]}:{key[1]}"


class Bindings:
    """Message → question, in memory for speed and in the adapter's state for restarts.

    Entries of ended questions are kept on purpose: a late reply to one is told the question
    ended, rather than being taken for chatter."""

    def __init__(self, state: AdapterState) -> None:
        self.state = state
        self._recent: dict[Key, QuestionId] = {}

    async def bind(self, key: Key, question_id: QuestionId) -> None:
        self._recent[key] = question_id
        await self.state.put(_stored(key), question_id)

    async def get(self, key: Key) -> QuestionId | None:
        if key in self._recent:
            return self._recent[key]
        found = await self.state.get(_stored(key))
        return QuestionId(found) if found else None

    def forget(self, question_id: QuestionId) -> None:
        """The question ended: drop it from memory (the store keeps it, see above)."""
        self._recent = {k: q for k, q in self._recent.items() if q != question_id}
