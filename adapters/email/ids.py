"""E-mail surfaces and message references: `email:<address>`, the prompt's `Message-ID`."""

from __future__ import annotations

from adapters.email.config import ADDRESS, plain_address
from bridge import MessageRef, SurfaceId, surface_target


def surface_for(address: str) -> SurfaceId:
    return SurfaceId(f"email:{plain_address(address)}")


def address_of(surface: SurfaceId | str) -> str:
    """`email:Ana@Example.org` → `ana@example.org`; ValueError when it is not an address."""
    target = surface_target(surface)
    address = plain_address(target)
    if not ADDRESS.match(address) or address != target.strip().lower():
        raise ValueError(target)
    return address


def message_ref(message_id: str) -> MessageRef:
    """The prompt's `Message-ID` (`<…@domain>`): reminders and status mails reply to it."""
    return MessageRef(message_id)


def parse_ref(ref: MessageRef | str) -> str:
    return str(ref)
