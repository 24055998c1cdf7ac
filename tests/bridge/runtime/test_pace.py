"""Pace: calls leave only with room in every window they count against, the most urgent first,
and a message waiting for several edits gets only its latest."""

from __future__ import annotations

import asyncio

from bridge import Pace, Priority, Window, WindowsByKey
from tests.harness import until


def one_window(capacity: int = 1, seconds: float = 0.01) -> tuple[Pace, Window]:
    window = Window(capacity, seconds)
    return Pace(lambda surface, priority: (window,)), window


async def test_prompts_leave_before_reminders_before_edits() -> None:
    pace, _ = one_window()
    sent: list[str] = []

    async def call(name: str, priority: Priority) -> None:
        async def send() -> None:
            sent.append(name)
        await pace.call("x:1", priority, send)

    async with pace.slot("x:1", Priority.PROMPT):  # the window is full while this is in flight
        tasks = [asyncio.create_task(call(name, priority)) for name, priority in (
            ("edit", Priority.EDIT), ("reminder", Priority.REMINDER), ("prompt 1", Priority.PROMPT),
            ("edit 2", Priority.EDIT), ("prompt 2", Priority.PROMPT))]
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    assert sent == ["prompt 1", "prompt 2", "reminder", "edit", "edit 2"]


async def test_pending_edits_of_one_message_collapse_into_the_latest() -> None:
    pace, _ = one_window()
    shown: list[str] = []

    def edit(message: str, text: str) -> asyncio.Task[None]:
        async def send() -> None:
            shown.append(f"{message}={text}")
        return asyncio.create_task(pace.edit("x:1", message, send))

    async with pace.slot("x:1", Priority.PROMPT):
        tasks = [edit("m1", "a"), edit("m2", "a"), edit("m1", "b"), edit("m1", "c")]
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    assert shown == ["m1=c", "m2=a"], "m1 keeps its place in line, with its latest text"


async def test_a_full_window_holds_calls_until_it_frees_and_others_pass_meanwhile() -> None:
    """Calls to a chat whose window is full wait; a call to another chat does not wait for them."""
    busy, free = Window(1, 30.0), Window(1, 30.0)
    pace = Pace(lambda surface, priority: (busy,) if surface == "x:busy" else (free,))
    sent: list[str] = []

    async def send(name: str) -> None:
        sent.append(name)

    await pace.call("x:busy", Priority.PROMPT, lambda: send("first"))
    waiting = asyncio.create_task(pace.call("x:busy", Priority.PROMPT, lambda: send("second")))
    await pace.call("x:free", Priority.EDIT, lambda: send("other chat"))
    assert sent == ["first", "other chat"] and not waiting.done()
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    assert not pace._lines, "a cancelled call leaves the line"


async def test_the_slot_the_core_took_is_spent_by_the_adapters_first_call_only() -> None:
    pace, window = one_window(capacity=2, seconds=30.0)
    calls: list[int] = []

    async def send() -> None:
        calls.append(len(calls))

    async with pace.slot("x:1", Priority.PROMPT):
        await pace.call("x:1", Priority.PROMPT, send)  # spends the core's slot
        await pace.call("x:1", Priority.PROMPT, send)  # a second part: the window's last room
        third = asyncio.create_task(pace.call("x:1", Priority.PROMPT, send))
        await until(lambda: len(calls) == 2)
        await asyncio.sleep(0)
        assert not third.done(), "two calls fill a window of two"
        third.cancel()
    await asyncio.gather(third, return_exceptions=True)
    assert not window.room(asyncio.get_running_loop().time())


async def test_idle_keys_windows_are_dropped_and_those_in_use_kept() -> None:
    """A chat nobody wrote to within its window leaves no state behind; a chat with a call
    waiting or counted keeps the same windows, so its limit still holds across the sweep."""
    chats: WindowsByKey[str] = WindowsByKey(lambda chat: (Window(1, 30.0),), sweep_every=0.0)
    loop = asyncio.get_running_loop()
    pace = Pace(lambda surface, priority: chats.get(surface, loop.time()))

    async def send() -> None:
        pass

    for chat in ("x:idle-1", "x:idle-2", "x:busy"):
        await pace.call(chat, Priority.PROMPT, send)
    busy = chats.get("x:busy", loop.time())
    waiting = asyncio.create_task(pace.call("x:busy", Priority.PROMPT, send))
    await until(lambda: bool(pace._lines))
    chats.sweep(loop.time() + 31)  # every window's span is over; x:busy has a call waiting
    assert len(chats) == 1 and chats.get("x:busy", loop.time() + 31) is busy
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    chats.sweep(loop.time() + 31)
    assert len(chats) == 0, "nothing waits and nothing counts: the last key goes too"


async def test_an_idle_chats_first_call_goes_before_the_next_calls_of_busy_chats() -> None:
    """Under a shared window (the bot's 30 a second), the chat that sent least recently goes
    first, one that has sent nothing before all, though the others asked first: an idle chat's
    wait does not grow with the backlog of every other chat."""
    bot = Window(1, 0.01)
    chats: WindowsByKey[str] = WindowsByKey(lambda chat: (Window(5, 30.0),))
    loop = asyncio.get_running_loop()
    pace = Pace(lambda surface, priority: (bot, *chats.get(surface, loop.time())))
    sent: list[str] = []

    def call(chat: str) -> asyncio.Task[None]:
        async def send() -> None:
            sent.append(chat)
        return asyncio.create_task(pace.call(chat, Priority.PROMPT, send))

    await call("x:busy-2")
    await call("x:busy-1")
    async with pace.slot("x:busy-2", Priority.PROMPT):  # the bot's window is full meanwhile
        tasks = [call("x:busy-1"), call("x:busy-2"), call("x:idle")]
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    assert sent[2:] == ["x:idle", "x:busy-1", "x:busy-2"]
