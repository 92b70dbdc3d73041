"""Language-server tools: the `code` tool (definition, references, symbols, hover) and the diagnostics a
running server adds after edits, through the Language Server Protocol (servers.py: which servers; client.py:
one server; host.py: a session's servers; tool.py: the tool)."""
