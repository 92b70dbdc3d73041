"""The model side: the OpenAI-compatible client, provider presets, stream assembly, tool calls in text."""
