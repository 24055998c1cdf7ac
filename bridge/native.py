"""Native prompts: what the core decided a surface shows as taps, and the taps coming back."""

from __future__ import annotations

from dataclasses import dataclass

from bridge.types import Button, QuestionId, SurfaceId, UserRef


@dataclass(frozen=True, slots=True)
class NativeQuestion:
    """One question of a native prompt: its options as buttons and what is chosen so far."""

    id: str
    header: str
    question: str
    options: tuple[Button, ...]
    """`action` is the option's 0-based index."""
    multi_select: bool
    chosen: tuple[int, ...] = ()
    """Options chosen so far (the stored partial answer), in option order."""
    free_text: bool = False
    """The partial answer is the person's own words (never shown back: it may hold secrets)."""

    @property
    def answered(self) -> bool:
        return bool(self.chosen) or self.free_text


@dataclass(frozen=True, slots=True)
class NativeControls:
    """The words on a native prompt's controls, already in the prompt's locale."""

    done: str
    submit: str
    other: str
    skip: str
    back: str
    next: str
    chosen: str
    """What a question with an own-words answer shows instead of the words: `answered`."""


@dataclass(frozen=True, slots=True)
class NativePrompt:
    """A multiSelect or several-question prompt to be answered by taps.

    The core decided it from the surface's capabilities; the adapter only lays it out:
    selections go in as `SelectionChanged`, `Done`/`Submit` as `SubmitPressed`.
    """

    questions: tuple[NativeQuestion, ...]
    controls: NativeControls


@dataclass(frozen=True, slots=True)
class SelectionChanged:
    """A person changed the selection of one question on a native prompt (never final)."""

    surface: SurfaceId
    user: UserRef
    question_id: QuestionId
    question: int
    """The question's 0-based position in the prompt."""
    options: tuple[int, ...]
    authorized: bool
    toggle: bool = False
    """True: flip each of `options` (Telegram toggles); False: `options` is the whole selection."""


@dataclass(frozen=True, slots=True)
class SubmitPressed:
    """`Done`/`Submit` on a native prompt: answer with the selections if every question has one."""

    surface: SurfaceId
    user: UserRef
    question_id: QuestionId
    authorized: bool
