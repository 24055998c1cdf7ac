"""E-mail surfaces and message references: `email:<address>`, the prompt's `Message-ID`."""

from __future__ import annotations

import re
from email.utils import make_msgid

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


SHOWN_CHARS = 16
_SHOWN = re.compile(rf"\.p([0-9a-f]{{{SHOWN_CHARS}}})@[^@<>\s]+>$")


def new_message_id(domain: str, shown: str | None = None) -> str:
    """A fresh `Message-ID`; about an approval, it ends in `.p<payload hash start>` so that a
    reply saying it answers this message (`In-Reply-To`) names the arguments it showed."""
    return make_msgid(f"p{shown[:SHOWN_CHARS]}" if shown else None, domain)


def shown_in(message_id: str) -> str | None:
    """The payload hash start a `Message-ID` of ours carries; None for any other."""
    found = _SHOWN.search(message_id.strip())
    return found.group(1) if found else None
