"""The only place that starts subprocesses: supervision, bounded capture, environment, the sandbox."""
