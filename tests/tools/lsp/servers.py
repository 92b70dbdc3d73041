"""What the language-server tests share: the real jedi-language-server of this Python, a fixture project, and
user settings that name a server (the user's file: a repository's own file could not)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

JEDI = Path(sys.executable).with_name("jedi-language-server")
FAKE = Path(__file__).with_name("fake_server.py")


def user_config(text: str) -> None:
    """Write the user's config.toml (tests run with an isolated XDG_CONFIG_HOME)."""
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "sneakycode"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text, encoding="utf-8")


def use_jedi(extra: str = "") -> None:
    user_config(f'[lsp.servers.jedi]\ncommand = "{JEDI}"\nlanguages = ["python"]\n{extra}')


def use_fake(mode: str, extra: str = "") -> None:
    user_config(f'[lsp.servers.fake]\ncommand = "{sys.executable}"\nargs = ["{FAKE}", "{mode}"]\n'
                f'languages = ["python"]\n{extra}')


def project(ws: Path) -> None:
    """A package with a function defined in one file and used in two others."""
    (ws / "shapes").mkdir()
    (ws / "shapes" / "__init__.py").write_text("")
    (ws / "shapes" / "geometry.py").write_text(
        'def area(width, height):\n    """The area of a rectangle."""\n    return width * height\n\n\n'
        "class Box:\n    def volume(self, depth):\n        return area(2, 3) * depth\n"
    )
    (ws / "main.py").write_text("from shapes.geometry import area\n\nprint(area(2, 3))\n")
    (ws / "report.py").write_text('import shapes.geometry as g\n\nlabel = "\U0001f600 é"; total = g.area(4, 5)\n')


def gone(pid: int, within: float = 5.0) -> bool:
    """Whether process group `pid` has no process left (within a few seconds)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            pass
        _reap()
        time.sleep(0.05)
    return False


def _reap() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
