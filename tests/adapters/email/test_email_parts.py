"""The e-mail adapter's pure parts: tokens, reading a reply, the HTML it writes, its config."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.headerregistry import Address
from typing import Any

import pytest
from pydantic import ValidationError

from adapters.email import inbound, quotes, render
from adapters.email.config import EmailConfig
from adapters.email.ids import address_of, surface_for
from adapters.email.inbound import MAX_TEXT, read_mail, token_pattern
from adapters.email.page import confirm
from adapters.email.replies import Replies
from adapters.email.tokens import Tokens, action_of, question_of, shown_of
from bridge import AgentName, PromptQuestion, QuestionId, SessionKey, SurfaceId
from bridge.model.prompt import Prompt
from tests.adapters.email.rig import PERSON, REPLIES, reply_bytes

QID = QuestionId("q_abcdefghijkmnpqr")
ANA = SurfaceId("email:ana@example.org")
PATTERN = token_pattern("ask+{token}@example.org")


def prompt(label: str = "Production") -> Prompt:
    question = PromptQuestion("env", "Deploy", "Where?", (("Staging", None), (label, "live")),
                              False)
    return Prompt(QID, AgentName("assistant"), SessionKey("main"), (question,),
                  datetime.now(UTC) + timedelta(minutes=5), "1) Staging\n2) x", "Deploy", "Where?",
                  "Expires at 2:30 PM UTC (in 5 min).")


def test_tokens_bind_question_surface_and_action() -> None:
    tokens = Tokens(b"k" * 32)
    reply = tokens.reply(QID, ANA)
    assert tokens.reply_surface(reply, ["web", ANA]) == ANA
    assert tokens.reply_surface(reply.upper(), [ANA]) == ANA, "mail systems may fold case"
    assert tokens.reply_surface(reply, ["email:boss@example.org"]) is None
    assert Tokens(b"x" * 32).reply_surface(reply, [ANA]) is None, "another key"
    link = tokens.link(QID, ANA, 1)
    assert (question_of(link), action_of(link)) == (QID, 1)
    forged = link.replace(".1.", ".2.")
    assert tokens.link_surface(link, [ANA]) == ANA and tokens.link_surface(forged, [ANA]) is None
    assert action_of(tokens.link(QID, ANA, "skip")) == "skip"
    assert question_of("q_short-abc") is None and question_of("../../etc") is None


def test_surfaces_are_plain_lowercase_addresses() -> None:
    assert surface_for("Ana <Ana@Example.org>") == "email:ana@example.org"
    assert address_of(SurfaceId("email:Ana@Example.org")) == "ana@example.org"
    for bad in ("email:not-an-address", "email:Ana <ana@example.org>", "email:"):
        with pytest.raises(ValueError):
            address_of(SurfaceId(bad))


@pytest.mark.parametrize("fixture", sorted(p.name for p in REPLIES.iterdir()))
def test_every_named_reply_reads_as_the_persons_words_only(fixture: str) -> None:
    ask = render.prompt(prompt(), _env(), render.Links((), "s", "c"))
    mail = read_mail(reply_bytes(fixture, ask, "Production, please"), PATTERN)
    assert mail.sender == PERSON and mail.tokens == (str(ask["Reply-To"]).split("+")[1]
                                                     .split("@")[0],)
    if fixture == "malformed_mime.eml":
        assert mail.text is None
    elif fixture == "vacation_autoreply.eml":
        assert mail.automatic
    else:
        assert (mail.text, mail.automatic) == ("Production, please", False)


def test_a_display_name_is_never_taken_for_the_address() -> None:
    raw = b'From: "ana@example.org" <mallory@evil.example>\r\nTo: x@y.z\r\n\r\n2\r\n'
    assert read_mail(raw, PATTERN).sender == "mallory@evil.example"
    two = b"From: ana@example.org, mallory@evil.example\r\nTo: x@y.z\r\n\r\n2\r\n"
    assert read_mail(two, PATTERN).sender == "", "two From addresses: nobody"


@pytest.mark.parametrize("sender", [
    "ana@example.org <mallory@evil.example>", "<ana@example.org> <mallory@evil.example>",
    "ana@example.org (x) <mallory@evil.example>", '"x" <ana@example.org>@evil.example'])
def test_a_from_read_two_ways_is_nobody(sender: str) -> None:
    """Python's parser finds ana in each; a mail server checking the From's domain sees
    evil.example. With the token (a forwarded prompt), that passed DMARC as anyone."""
    raw = f"From: {sender}\r\nTo: x@y.z\r\n\r\n2\r\n".encode()
    assert read_mail(raw, PATTERN).sender not in (PERSON, "ana@example.org")
    twice = f"From: {PERSON}\r\nFrom: <>\r\nTo: x@y.z\r\n\r\n2\r\n".encode()
    assert read_mail(twice, PATTERN).sender == "", "exactly one From field"


def test_garbage_bytes_never_raise() -> None:
    lone_surrogate = b"To: x@y.z\r\nContent-Type: text/plain; charset=utf-16-le\r\n\r\n\x00\xd8"
    for raw in (b"", b"\x00\xff" * 100, lone_surrogate, b"From: \r\n\r\n",
                b"Content-Type: multipart/x\r\n\r\n--"):
        mail = read_mail(raw, PATTERN)
        assert mail.tokens == () and "\x00" not in (mail.text or "")


def test_labels_are_escaped_in_the_html_and_on_the_page() -> None:
    evil = "<script>alert(1)</script>"
    html = render.prompt(prompt(evil), _env(), render.Links(((evil, "https://x/e/1"),), "s", "c"))
    body = html.get_body(preferencelist=("html",))
    assert body is not None and "<script>" not in body.get_content()
    assert "&lt;script&gt;" in confirm("en", "Deploy", "Where?", evil, None, False)
    assert "<script>" not in confirm("en", evil, evil, evil, evil, False)


def test_config_says_what_to_fix() -> None:
    base = {"from": "askbridge <ask@example.org>", "smtp_host": "smtp.example.org",
            "reply_to": "ask+{token}@example.org"}
    assert EmailConfig.model_validate(base).smtp_port_or_default == 587
    for bad, words in ((
            {"reply_to": "ask@example.org"}, "{token} in its local part"),
            ({"imap_host": "imap.example.org"}, "imap_user_env and imap_password_env"),
            ({"smtp_user_env": "U"}, "both smtp_user_env and smtp_password_env"),
            ({"answerers": ["ana"]}, "e-mail addresses"),
            ({"from": "nobody"}, "an address")):
        with pytest.raises(ValidationError, match=re.escape(words)):
            EmailConfig.model_validate({**base, **bad})


def _env() -> render.Envelope:
    return render.Envelope(Address("askbridge", addr_spec="ask@example.org"), PERSON,
                           "ask+q_abcdefghijkmnpqr-abcdefghijklmnopqrst@example.org",
                           render.thread_root(QID, "example.org"), "example.org")


def test_a_huge_line_never_reaches_the_quote_library_whole(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """The library's patterns cost the square of a line's length: one 1 MB line after "On "
    held the event loop for hours. It gets short lines only, and a bounded amount of them; the
    person's words come back whole (up to what is kept)."""
    given: list[str] = []

    class Recording(quotes._Reply):
        def __init__(self, text: str, **kwargs: Any) -> None:
            given.append(text)
            super().__init__(text=text, **kwargs)

    monkeypatch.setattr(quotes, "_Reply", Recording)
    body = "On " + "a " * 500_000
    raw = f"From: {PERSON}\r\nTo: x@y.z\r\n\r\n{body}\r\n".encode()
    mail = read_mail(raw, PATTERN)
    [text] = given
    assert max(map(len, text.splitlines())) <= quotes.LONG_LINE
    assert len(text) <= quotes.MAX_READ
    assert mail.text == body[:MAX_TEXT].strip()


async def test_mail_that_may_not_answer_is_never_read_for_words(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Anyone can put mail in the box: only a reply with a valid token from an answerer is
    worth the time finding its words takes."""
    def refuse(text: str) -> str:
        raise AssertionError("the words of mail that may not answer were read")

    monkeypatch.setattr(inbound, "own_words", refuse)
    replies = Replies(EmailConfig.model_validate({
        "from": "ask@example.org", "smtp_host": "x", "reply_to": "ask+{token}@example.org"}),
        Tokens(b"k" * 32), None, None, None, None, None)  # type: ignore[arg-type]
    raw = f"From: {PERSON}\r\nTo: ask@example.org\r\n\r\nOn {'a ' * 1000}\r\n".encode()
    assert await replies.handle(raw) == "no_token"


def test_an_approval_link_is_bound_to_the_payload_it_showed() -> None:
    tokens = Tokens(b"k" * 32)
    link = tokens.link(QID, ANA, 0, "d1275e7871d5" + "0" * 52)
    assert shown_of(link) == "d1275e7871d5" and tokens.link_surface(link, [ANA]) == ANA
    other = link.replace("d1275e7871d5", "0" * 12)
    assert tokens.link_surface(other, [ANA]) is None, "the payload is under the MAC"
    assert shown_of(tokens.link(QID, ANA, 0)) is None
