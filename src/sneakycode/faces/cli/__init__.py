"""The face: thin adapters that parse flags, wire a run (startup.py) and print. Nothing below imports it."""
