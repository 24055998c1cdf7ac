"""The HTTP interface: the agents' API (`/v1`), its OpenAPI document, and the web helpers adapters
use for their own routes (`read_json`, `error_response`), which need Starlette."""

from bridge.http.bodies import read_json
from bridge.http.responses import error_response

__all__ = ["error_response", "read_json"]
