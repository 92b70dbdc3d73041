"""The generated tree of bench/repo_map.py: GENERATED_FILES Python modules that use each other's names, in a
git repository (committed), beside an untracked virtualenv whose site-packages the map must never enter."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

GENERATED_FILES = 5_000
VENV_FILES = 2_000
PACKAGES = 50


def module_text(number: int, rng: random.Random) -> str:
    """A module of about 60 lines: a class, four functions, calls to names other modules define."""
    calls = "\n".join(f"    total += compute_{other}_{kind}(value)"
                      for other, kind in ((rng.randrange(GENERATED_FILES), rng.choice("ab")) for _ in range(6)))
    return f'''"""Module {number}."""

from __future__ import annotations


class Widget{number}:
    """A widget."""

    def __init__(self, size: int) -> None:
        self.size = size

    def grow(self, by: int) -> int:
        self.size += by
        return self.size


def compute_{number}_a(value: int) -> int:
    total = value
{calls}
    return total


def compute_{number}_b(value: int) -> int:
    return compute_{number}_a(value) * 2


def helper_{number}(items: list[int]) -> list[int]:
    return [Widget{number}(item).grow(1) for item in items]


def _private_{number}() -> None:
    pass
''' + "".join(f"\n\n# padding line {line}: the body of a real module is longer than its names" for line in range(20))


def generate_tree(root: Path) -> int:
    """Write the tree under `root` and commit it; returns the files tracked."""
    rng = random.Random(42)
    for number in range(GENERATED_FILES):
        path = root / f"pkg{number % PACKAGES}" / f"mod{number}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(module_text(number, rng), encoding="utf-8")
    site = root / ".venv" / "lib" / "python3.11" / "site-packages" / "vendored"
    site.mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for number in range(VENV_FILES):
        (site / f"dep{number}.py").write_text(f"def vendored_{number}():\n    return {number}\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".git" / "info" / "exclude").write_text("")  # the virtualenv is untracked and not ignored
    subprocess.run([*git, "-C", str(root), "add", *(f"pkg{n}" for n in range(PACKAGES))], check=True)
    subprocess.run([*git, "-C", str(root), "commit", "-q", "-m", "tree"], check=True)
    return GENERATED_FILES
