"""The faces: every adapter between a person or a program and a run.

`cli/` is the command line, `terminal/` the interactive terminal, `acp/` the editor face, `shared/` what more
than one face needs. A face turns its input into `sneakycode.api` calls; the import contract in pyproject.toml
keeps it above the door.
"""
