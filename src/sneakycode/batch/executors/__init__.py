"""Where tasks run: `local` (a pool of threads on this machine, each driving agent subprocesses) or `ray`."""
