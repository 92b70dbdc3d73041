"""What users add to their agent: skills, custom slash commands (and, beside them, MCP servers, hooks and
subagents). Each turns into tools, prompts or gate steps through the interfaces the built-ins use."""
