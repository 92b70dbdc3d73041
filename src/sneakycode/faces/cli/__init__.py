"""The command line: main.py's one table of subcommands, one module per subcommand (`add_arguments`, `run`),
each turning its flags into `sneakycode.api` calls and printing; the flags, exit codes and headless output
they share are in faces/shared/. Nothing below the faces imports it."""
