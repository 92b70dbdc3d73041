"""Test doubles that ship with SneakyCode: `server.ScriptedServer`, a scripted OpenAI-compatible server."""
