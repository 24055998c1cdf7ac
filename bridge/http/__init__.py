"""The HTTP interface: the app factory, the agents' API, OpenAPI, body limits, the uvicorn runner."""
