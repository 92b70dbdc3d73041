"""The composition root and the Python API (docs/sdk.md): `Options`, `Session`, `run`, `Result`, `tool`.
Faces (the command line, the editor protocol) and programs build every run here."""
