"""The MCP client: other programs' tools, offered to the model as `mcp__SERVER__TOOL` (see docs/mcp.md)."""
