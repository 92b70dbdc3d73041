"""The masking wrapper a language server runs in (process/sandbox.masking_argv): everything as it is, except
what deny rules hide, which reads as nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from sneakycode.process.sandbox import masking_argv, probe_masking
from sneakycode.process.supervise import run_process


def test_a_covered_file_and_folder_read_as_nothing_and_the_rest_as_it_is(tmp_path: Path) -> None:
    """Hardening round three, class 2: a covered file reads empty, a covered folder lists nothing, and a file
    beside them reads as it is."""
    probe = probe_masking(tmp_path)
    if not probe.available:
        pytest.skip(probe.reason)
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "keys.py").write_text("TOKEN = 'sk-1'\n")
    (tmp_path / "secrets.py").write_text("TOKEN = 'sk-2'\n")
    (tmp_path / "app.py").write_text("print('visible')\n")
    script = "cat secrets.py app.py; ls private; echo done"
    argv = masking_argv(["/bin/sh", "-c", script], bwrap=probe.bwrap,
                        covered=[tmp_path / "private", tmp_path / "secrets.py"])
    result = run_process(argv, cwd=tmp_path, timeout=20)
    out = result.stdout.decode()
    assert result.ending.exit_code == 0, result.stderr
    assert out == "print('visible')\ndone\n", out
