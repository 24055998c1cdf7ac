"""An approval by e-mail, through aiosmtpd and Dovecot: the prompt carries the arguments, a
`tolak <alasan>` reply from a real mail client (quoted prompt and all) rejects with the reason;
after an edit, a reply to the replaced prompt is refused as stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.email.ids import new_message_id
from adapters.email.inbound import read_mail, token_pattern
from adapters.email.render import KIND_HEADER
from bridge import ApprovalDecided, QuestionId, SurfaceId, UserRef, payload_hash
from tests.adapters.email.rig import BOSS, PERSON, links, mail_rig, part, watching
from tests.harness import AGENT_TOKEN, make_config, running, until

DEPLOY: dict[str, Any] = {"action": "Deploy web to production", "tool": "deploy",
                          "arguments": {"env": "production"}}
EDITED = {"env": "staging"}


async def test_a_reply_rejects_with_its_reason(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.http() as http:
            await watching(r)
            auth = {"authorization": f"Bearer {AGENT_TOKEN}"}
            created = await http.post("/v1/sessions/main/approvals", json=DEPLOY, headers=auth)
            assert created.status_code == 202, created.text
            approval_id = created.json()["id"]
            [prompt] = await until(lambda: rig.prompts())
            shown = part(prompt)
            assert "Deploy web to production" in shown and '"env": "production"' in shown
            await rig.reply("tolak jangan hari Jumat", "outlook_id.eml")

            async def ended() -> dict[str, Any] | None:
                found = (await http.get(f"/v1/approvals/{approval_id}", params={"wait": 1},
                                        headers=auth)).json()
                return found if found["status"] != "pending" else None
            result = (await until(ended, timeout=30))["result"]
            assert result["status"] == "rejected"
            assert result["reason"] == "jangan hari Jumat"
            assert result["decidedBy"] == [{"surface": f"email:{PERSON}", "user": PERSON}]


async def test_a_reply_to_a_prompt_an_edit_replaced_is_refused_as_stale(tmp_path: Path) -> None:
    """An edit under quorum mails the prompt again with the new arguments; a reply to the old
    prompt (its `In-Reply-To`) decides on arguments no longer waiting: refused, not counted.
    A reply to the new one counts."""
    people = [{"name": "ana", "email": [PERSON]}, {"name": "budi", "email": [BOSS]}]
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], people=people,
                             approvals=[{"approvers": ["ana", "budi"], "required": 2}],
                             **rig.section)
        async with running(config, rig.env) as r, r.http() as http:
            await watching(r)
            auth = {"authorization": f"Bearer {AGENT_TOKEN}"}
            created = await http.post("/v1/sessions/main/approvals", json=DEPLOY, headers=auth)
            approval_id = QuestionId(created.json()["id"])
            [old] = await until(lambda: rig.prompts())
            told = await r.bridge.receiver.approval_decided(ApprovalDecided(
                SurfaceId(f"email:{PERSON}"), UserRef(BOSS), approval_id, "approve", True,
                arguments=EDITED, payload_hash=payload_hash(DEPLOY["arguments"])))
            assert told.accepted and "new arguments" in (told.text or "")
            [_, new] = await until(lambda: rig.prompts() if len(rig.prompts()) == 2 else None)
            assert '"env": "staging"' in part(new)

            await rig.reply("approve", prompt=old)
            notices = await until(lambda: [m for m in rig.outbox.to(PERSON)
                                           if m[KIND_HEADER] == "notice"])
            assert "changed by an edit" in part(notices[0])
            found = (await http.get(f"/v1/approvals/{approval_id}", headers=auth)).json()
            assert found["status"] == "pending"
            assert [v["user"] for v in found["votes"]] == [BOSS]

            await rig.reply("approve", prompt=new)

            async def ended() -> dict[str, Any] | None:
                found = (await http.get(f"/v1/approvals/{approval_id}", params={"wait": 1},
                                        headers=auth)).json()
                return found if found["status"] != "pending" else None
            result = (await until(ended, timeout=30))["result"]
            assert result["status"] == "approved" and result["arguments"] == EDITED


def test_the_message_replied_to_names_the_payload_it_showed() -> None:
    """`In-Reply-To` (with a comment, as some clients add), else the last `References` entry;
    a Message-ID of a question's mail, or anyone else's, names none."""
    digest = payload_hash(DEPLOY["arguments"])
    ours = new_message_id("example.org", digest)
    tokens = token_pattern("ask+{token}@example.org")

    def shown(headers: str) -> str | None:
        raw = f"From: {PERSON}\r\n{headers}Subject: Re: x\r\n\r\napprove\r\n".encode()
        return read_mail(raw, tokens).shown

    assert shown(f"In-Reply-To: {ours} (Ana's message)\r\n") == digest[:16]
    assert shown(f"References: <q_x@example.org> {ours}\r\n") == digest[:16]
    assert shown(f"In-Reply-To: {new_message_id('example.org')}\r\nReferences: {ours}\r\n") is None
    assert shown(f"In-Reply-To: <{digest[:16]}@example.org>\r\n") is None
    assert shown("") is None


async def test_a_link_in_a_prompt_an_edit_replaced_does_not_approve_the_new_arguments(
        tmp_path: Path) -> None:
    """The Approve link of the mail that showed `production` must not approve `staging`: a
    decision is for the payload it was shown (§14), by link as by reply."""
    people = [{"name": "ana", "email": [PERSON]}, {"name": "budi", "email": [BOSS]}]
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], people=people,
                             approvals=[{"approvers": ["ana", "budi"], "required": 2}],
                             **rig.section)
        async with running(config, rig.env) as r, r.http() as http:
            auth = {"authorization": f"Bearer {AGENT_TOKEN}"}
            created = await http.post("/v1/sessions/main/approvals", json=DEPLOY, headers=auth)
            approval_id = QuestionId(created.json()["id"])
            [old] = await until(lambda: rig.prompts())
            told = await r.bridge.receiver.approval_decided(ApprovalDecided(
                SurfaceId(f"email:{PERSON}"), UserRef(BOSS), approval_id, "approve", True,
                arguments=EDITED, payload_hash=payload_hash(DEPLOY["arguments"])))
            assert told.accepted
            [_, new] = await until(lambda: rig.prompts() if len(rig.prompts()) == 2 else None)

            pressed = await http.post(links(old)["Approve"])
            assert pressed.status_code == 409 and "changed by an edit" in pressed.text
            found = (await http.get(f"/v1/approvals/{approval_id}", headers=auth)).json()
            assert found["status"] == "pending"
            assert [v["user"] for v in found["votes"]] == [BOSS]

            pressed = await http.post(links(new)["Approve"])
            assert pressed.status_code == 200, pressed.text
            found = (await http.get(f"/v1/approvals/{approval_id}", headers=auth)).json()
            assert found["status"] == "approved"
            assert found["result"]["arguments"] == EDITED


async def test_the_reject_link_takes_the_reason_on_its_confirm_page(tmp_path: Path) -> None:
    """A rejection needs its reason: the Reject link's page asks for it and sends it along;
    the page's POST without one is refused with the core's words, and nothing is counted."""
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.http() as http:
            auth = {"authorization": f"Bearer {AGENT_TOKEN}"}
            created = await http.post("/v1/sessions/main/approvals", json=DEPLOY, headers=auth)
            approval_id = created.json()["id"]
            [prompt] = await until(lambda: rig.prompts())
            reject = links(prompt)["Reject"]
            shown = await http.get(reject)
            assert shown.status_code == 200
            assert '<textarea id="reason" name="reason"' in shown.text
            assert "<textarea" not in (await http.get(links(prompt)["Approve"])).text

            bare = await http.post(reject)
            assert bare.status_code == 409 and "reason" in bare.text, bare.text
            found = (await http.get(f"/v1/approvals/{approval_id}", headers=auth)).json()
            assert found["status"] == "pending" and found["votes"] == []

            done = await http.post(reject, data={"reason": "not on a Friday"})
            assert done.status_code == 200, done.text
            found = (await http.get(f"/v1/approvals/{approval_id}", headers=auth)).json()
            assert found["status"] == "rejected"
            assert found["result"]["reason"] == "not on a Friday"
            assert found["result"]["decidedBy"] == [{"surface": f"email:{PERSON}",
                                                     "user": PERSON}]
