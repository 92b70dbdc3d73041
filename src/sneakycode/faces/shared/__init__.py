"""What every face of the command line shares: the model, budget and workspace flags (flags.py), exit codes
and how a run's Result becomes one (exit_codes.py), settings and Ctrl-C at a command's start (startup.py),
and what a headless run prints (headless_output.py). Imports only `sneakycode.api`."""
