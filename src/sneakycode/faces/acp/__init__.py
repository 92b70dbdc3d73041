"""The Agent Client Protocol face: `sneakycode acp` lets an editor (Zed, JetBrains, Neovim, Emacs) drive
SneakyCode over stdio, with the official `agent-client-protocol` SDK. Like every face it turns its input into
`Options` and runs `api.Session`, importing only `sneakycode.api`; nothing here wires an agent of its own.

    server.py    the protocol's methods (initialize, session/new|load|resume|list|close|prompt|cancel|set_mode|
                 set_config_option)
    live.py      one editor session: the Session, its event pump to the client, its permission asks
    updates.py   SneakyCode's events as the protocol's session updates (tool kinds, titles, diffs, plans)
    replay.py    a loaded session's history as the updates that showed it live
    config_options.py   the pickers: model, small model, mode, reasoning effort
    prompt.py    the editor's content blocks as a request (text, files, images)
    wire.py      the stdio transport that answers malformed lines with JSON-RPC errors
    lines.py     newline-delimited messages read with the 50 MiB bound (a longer line is never held)
    client_fs.py the client's files, when it offers them (its terminals are never used: docs/editors.md)
"""
