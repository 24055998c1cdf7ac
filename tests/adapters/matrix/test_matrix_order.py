"""How the sync loop's events are handled: in order within a room, rooms side by side, and the
position stored only behind events that are handled (no homeserver: the events are coroutines)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from adapters.matrix.order import InRoomOrder
from tests.harness import until


class Events:
    """Events that record when they run and end, each one held until the test lets it go."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}

    def event(self, name: str, held: bool = False) -> Callable[[], Awaitable[None]]:
        gate = self.gates.setdefault(name, asyncio.Event())
        if not held:
            gate.set()

        async def run() -> None:
            self.log.append(f"{name} starts")
            await gate.wait()
            self.log.append(f"{name} ends")
        return run


def recording(max_in_hand: int = 256) -> tuple[InRoomOrder, list[str], Events]:
    """An order whose saved positions are kept in a list, and events to hand it."""
    saved: list[str] = []

    async def save(position: str) -> None:
        saved.append(position)
    return InRoomOrder(save, max_in_hand), saved, Events()


async def test_a_rooms_events_keep_their_order_and_other_rooms_do_not_wait() -> None:
    order, saved, events = recording()
    batch = order.batch("s1")
    await order.add(batch, "!a", events.event("a1", held=True))
    await order.add(batch, "!a", events.event("a2"))
    await order.add(batch, "!b", events.event("b1"))
    await order.taken(batch)
    await until(lambda: "b1 ends" in events.log, timeout=5)
    assert "a2 starts" not in events.log, "a room's next event waits for the one before"
    assert saved == [], "nothing is stored while an event of the batch is in hand"

    events.gates["a1"].set()
    await until(lambda: saved == ["s1"], timeout=5)
    assert events.log.index("a1 ends") < events.log.index("a2 starts")


async def test_the_position_moves_only_past_handled_batches_and_never_back() -> None:
    order, saved, events = recording()
    first = order.batch("s1")
    await order.add(first, "!a", events.event("a1", held=True))
    await order.taken(first)
    for n in (2, 3):  # later batches, handled at once in another room
        later = order.batch(f"s{n}")
        await order.add(later, "!b", events.event(f"b{n}"))
        await order.taken(later)
    empty = order.batch("s4")
    await order.taken(empty)
    # b5 starts only once b3 is wholly done, its batch's position saved or not
    held = order.batch("s5")
    await order.add(held, "!b", events.event("b5", held=True))
    await order.taken(held)
    await until(lambda: "b5 starts" in events.log, timeout=5)
    assert saved == [], "s2..s4 are handled, but s1 is not: a restart must see a1 again"

    events.gates["a1"].set()
    await until(lambda: bool(saved), timeout=5)
    assert saved == ["s4"], "straight to the newest handled position"
    await order.stop()


async def test_stopping_cancels_what_is_in_hand_and_keeps_the_position_before_it() -> None:
    order, saved, events = recording()
    done = order.batch("s1")
    await order.add(done, "!a", events.event("a1"))
    await order.taken(done)
    await until(lambda: saved == ["s1"], timeout=5)
    stuck = order.batch("s2")
    await order.add(stuck, "!a", events.event("a2", held=True))
    await order.taken(stuck)
    await until(lambda: "a2 starts" in events.log, timeout=5)
    await order.stop()
    assert "a2 ends" not in events.log and saved == ["s1"]


async def test_a_failing_event_is_logged_and_the_stream_goes_on() -> None:
    order, saved, events = recording()

    async def broken() -> None:
        raise ValueError("odd event")
    batch = order.batch("s1")
    await order.add(batch, "!a", broken)
    await order.add(batch, "!a", events.event("a2"))
    await order.taken(batch)
    await until(lambda: saved == ["s1"], timeout=5)
    assert events.log == ["a2 starts", "a2 ends"]


async def test_with_the_most_events_in_hand_taking_more_waits() -> None:
    order, _, events = recording(max_in_hand=2)
    batch = order.batch("s1")
    await order.add(batch, "!a", events.event("a1", held=True))
    await order.add(batch, "!b", events.event("b1", held=True))
    third = asyncio.create_task(order.add(batch, "!c", events.event("c1")))
    # a1's and b1's first steps run in the loop turn that runs the third's first step too
    await until(lambda: {"a1 starts", "b1 starts"} <= set(events.log), timeout=5)
    assert not third.done(), "a third event waits for a free slot"
    events.gates["b1"].set()
    await asyncio.wait_for(third, 5)
    await until(lambda: "c1 ends" in events.log, timeout=5)
    await order.stop()
