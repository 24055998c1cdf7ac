"""The approvals half of `AskClient`: approve (blocking), request_approval (202) and its
wait/get/cancel, the rules, the audit log; results typed as the HTTP API returns them."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx

from bridge.agent.calls import AskError, Caller, body_of, refused
from bridge.model.approval import ApprovalResult


def approval_body(
    action: str,
    *,
    tool: str | None = None,
    arguments: dict[str, Any] | None = None,
    arguments_schema: dict[str, Any] | None = None,
    risk: str | None = None,
    allow_edit: bool | None = None,
    timeout_seconds: int | None = None,
) -> dict[str, Any]:
    """The request body (camelCase; what is not given is left to the server's defaults)."""
    fields = {"action": action, "tool": tool, "arguments": arguments,
              "argumentsSchema": arguments_schema, "risk": risk, "allowEdit": allow_edit,
              "timeoutSeconds": timeout_seconds}
    return {k: v for k, v in fields.items() if v is not None}


class ApprovalCalls(Caller):
    """Approvals over HTTP, for the agent whose token the client holds."""

    async def approve(self, action: str, *, session: str | None = None,
                      **fields: Any) -> ApprovalResult:
        """Ask a person to approve `action` and wait for the decision (cancelling this call
        cancels the approval). `fields`: tool, arguments, arguments_schema, risk, allow_edit,
        timeout_seconds."""
        return await self.approve_body(approval_body(action, **fields), session=session)

    async def approve_body(self, body: dict[str, Any], *,
                           session: str | None = None) -> ApprovalResult:
        """`approve` with the request as its JSON body. If the server restarts meanwhile, keep
        waiting for the same approval."""
        path = f"/v1/sessions/{session or self.session}/approve"
        response = await self._http.request("POST", path, json=body)
        if response.status_code == 503 and "id" in body_of(response):
            return await self.wait_approval(str(body_of(response)["id"]))
        if response.status_code >= 400:
            refused(response)
        return ApprovalResult.model_validate(response.json())

    async def request_approval(self, action: str, *, session: str | None = None,
                               **fields: Any) -> dict[str, Any]:
        """Ask without waiting: `{id, status, expiresAt}`; then `wait_approval(id)`."""
        return await self.create_approval(approval_body(action, **fields), session=session)

    async def create_approval(self, body: dict[str, Any], *,
                              session: str | None = None) -> dict[str, Any]:
        """`request_approval` with the request as its JSON body."""
        response = await self._call("POST", f"/v1/sessions/{session or self.session}/approvals",
                                    json=body)
        return dict(response.json())

    async def approval_result(self, approval_id: str, wait: float = 0) -> ApprovalResult | None:
        """The result, or None while still pending after `wait` seconds."""
        response = await self._call("GET", f"/v1/approvals/{approval_id}/result",
                                    params={"wait": wait})
        if response.status_code == 202:
            return None
        return ApprovalResult.model_validate(response.json())

    async def wait_approval(self, approval_id: str, patience: float = 120.0) -> ApprovalResult:
        """Long-poll until decided, riding out a server restart (down at most `patience`
        seconds); cancelling this call cancels the approval."""
        loop = asyncio.get_running_loop()
        down_since: float | None = None
        try:
            while True:
                try:
                    result = await self.approval_result(approval_id, wait=30)
                    down_since = None
                except (httpx.TransportError, AskError) as exc:
                    if isinstance(exc, AskError) and exc.status < 500:
                        raise
                    down_since = down_since or loop.time()
                    if loop.time() - down_since > patience:
                        raise
                    await asyncio.sleep(0.5)
                    continue
                if result is not None:
                    return result
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self.cancel_approval(approval_id)), 5)
            raise

    async def approval(self, approval_id: str) -> dict[str, Any]:
        """The whole record: status, the request, votes, result, timestamps."""
        return dict((await self._call("GET", f"/v1/approvals/{approval_id}")).json())

    async def cancel_approval(self, approval_id: str) -> ApprovalResult:
        """Cancel a pending approval; a decision that already won stays the decision."""
        response = await self._call("POST", f"/v1/approvals/{approval_id}/cancel")
        return ApprovalResult.model_validate(response.json())

    async def rules(self) -> list[dict[str, Any]]:
        """The standing "allow for 1 h" rules this agent may see."""
        body = (await self._call("GET", "/v1/rules")).json()
        return list(body["rules"] if isinstance(body, dict) else body)

    async def revoke_rule(self, rule_id: str) -> dict[str, Any]:
        return dict((await self._call("POST", f"/v1/rules/{rule_id}/revoke")).json())

    async def audit_page(self, after: int = 0, limit: int = 1000,
                         since: str | None = None) -> dict[str, Any]:
        """One page of the audit log in chain order: `{entries, anchor, next}` (main agents)."""
        params: dict[str, Any] = {"after": after, "limit": limit}
        if since:
            params["since"] = since
        return dict((await self._call("GET", "/v1/audit", params=params)).json())

    async def audit(self, since: str | None = None) -> list[dict[str, Any]]:
        """Every audit entry (written at or after `since`, ISO 8601), every page."""
        found: list[dict[str, Any]] = []
        after: int | None = 0
        while after is not None:
            page = await self.audit_page(after, 1000, since)
            found += page["entries"]
            after = page.get("next")
        return found

    async def verify_audit(self) -> dict[str, Any]:
        """The server's check of the whole chain: `{ok, entries, brokenAt, problem}`."""
        return dict((await self._call("GET", "/v1/audit/verify")).json())
