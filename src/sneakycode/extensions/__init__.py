"""What users add: hooks (and MCP servers, skills, custom commands); each becomes tools, prompts or gate steps
through the interfaces the built-ins use. Below the agent, above permissions."""
