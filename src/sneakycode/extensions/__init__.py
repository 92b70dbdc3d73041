"""What users add to their agent: MCP servers, skills, custom slash commands and hooks. Each turns into tools,
prompts or gate steps through the interfaces the built-ins use. Below the agent, above permissions."""
