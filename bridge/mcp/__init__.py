"""The MCP interface: the `ask_user` tool, served over streamable HTTP at /mcp and over stdio."""
