"""The tool layer: each tool a pydantic args model + a function returning ToolResult, declared with @tool."""
