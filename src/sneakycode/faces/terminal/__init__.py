"""The interactive terminal: prompt_toolkit for input, rich for output, the user as the Approver; its slash
commands call `Session` verbs only."""
