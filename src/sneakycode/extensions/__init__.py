"""What users add to SneakyCode: MCP servers (and, later, skills, commands and hooks). Each becomes tools,
prompts or gate steps through the same interfaces the built-ins use; nothing here knows the loop."""
