"""The interactive terminal: prompt_toolkit for input, rich for output, the user as the Approver."""
