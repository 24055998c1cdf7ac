"""The agent's side: a client of the HTTP API that loads nothing of the server."""
