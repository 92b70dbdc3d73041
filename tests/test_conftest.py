"""The in-process runner (`run_main`) gives what the real CLI gives, and leaves this process as it found it: a test
that trades `run_cli` for it must still see every difference a user would."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.conftest import run_cli, run_main


def test_run_main_gives_the_exit_code_stdout_and_stderr_the_cli_gives(ws: Path) -> None:
    (ws / "a.txt").write_text("hello\n")
    for argv in (("tool", "read_file", json.dumps({"file_path": "a.txt"}), "--json", "--workspace", str(ws)),
                 ("tool", "read_file", json.dumps({"file_path": "missing.txt"}), "--workspace", str(ws)),
                 ("undo", "--steps", "zero")):  # fmt: skip
        in_process, real = run_main(*argv), run_cli(*argv)
        assert (in_process.code, in_process.stdout, in_process.stderr) == (real.code, real.stdout, real.stderr), argv
    assert in_process.code == 2 and "usage:" in in_process.stderr  # argparse's SystemExit, mapped as Python does


def test_run_main_restores_the_environment_folder_and_streams(ws: Path) -> None:
    environ, folder, streams = dict(os.environ), os.getcwd(), (sys.stdin, sys.stdout, sys.stderr)
    descriptors = [os.fstat(fd).st_ino for fd in (1, 2)]
    result = run_main("tool", "--list", cwd=ws, env={"SNEAKYCODE_API_KEY": "sk-test-1"}, stdin="ignored")
    assert result.code == 0 and "read_file" in result.stdout
    assert dict(os.environ) == environ and os.getcwd() == folder
    assert (sys.stdin, sys.stdout, sys.stderr) == streams
    assert [os.fstat(fd).st_ino for fd in (1, 2)] == descriptors
