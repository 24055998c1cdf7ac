"""The server: the composition root that builds and wires everything, the app, and uvicorn."""
