"""Extra roots in the one containment (workspace/paths.py, files.py, roots.py): a path inside any root is
inside, by the same rules; files are reached from the descriptor of the root that holds them, so a folder
swapped for a link after the check stops the tool there too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sneakycode.errors import ConfigError, ErrorCode, ToolError
from sneakycode.workspace.files import Workspace
from sneakycode.workspace.paths import locate, path_forms
from sneakycode.workspace.roots import extra_roots


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path, Path]:
    main, other, outside = tmp_path / "main", tmp_path / "other", tmp_path / "outside"
    for folder in (main, other / "sub", outside):
        folder.mkdir(parents=True)
    (outside / "secret.txt").write_text("OUTSIDE\n")
    return main.resolve(), other.resolve(), outside.resolve()


def test_a_path_in_an_extra_root_is_inside_and_names_its_root(roots: tuple[Path, Path, Path]) -> None:
    """Hardening round three, class multi-root containment."""
    main, other, outside = roots
    located = locate(main, str(other / "sub" / "a.txt"), (other,))
    assert located.real_inside and located.root == other and located.written == "sub/a.txt"
    assert not locate(main, str(outside / "secret.txt"), (other,)).real_inside
    assert not locate(main, str(other / "sub" / "a.txt")).real_inside  # without the extra root: outside
    assert not locate(main, str(other) + "-twin/a.txt", (other,)).real_inside  # whole components only


def test_rule_forms_of_an_extra_root_path_are_relative_to_it_too(roots: tuple[Path, Path, Path]) -> None:
    """Hardening round three, class multi-root containment: deny rules see `sub/a.txt` as well as `../other/...`."""
    main, other, _ = roots
    forms = path_forms(main, str(other / "sub" / "a.txt"), False, (other,))
    assert "sub/a.txt" in forms and "../other/sub/a.txt" in forms


def test_a_folder_of_an_extra_root_swapped_for_a_link_after_the_check_stops_the_write(
        roots: tuple[Path, Path, Path]) -> None:
    """Hardening round three, class multi-root containment: races are handled as in the workspace: the walk
    starts at the extra root's descriptor and follows no link."""
    main, other, outside = roots
    ws = Workspace(main, extra_roots=(other,))
    target = str(other / "sub" / "secret.txt")
    real = ws.resolve(target)
    os.rename(other / "sub", other / "sub-moved")
    (other / "sub").symlink_to(outside)
    with pytest.raises(ToolError) as caught:
        ws._open_folder(real.parent, target)
    assert caught.value.code is ErrorCode.PATH_CHANGED
    with pytest.raises(ToolError) as again:
        ws.write_text(target, "overwritten\n")
    assert again.value.code is ErrorCode.SYMLINK_ESCAPE
    assert (outside / "secret.txt").read_text() == "OUTSIDE\n"


def test_extra_roots_are_resolved_once_without_repeats(roots: tuple[Path, Path, Path], tmp_path: Path) -> None:
    main, other, _ = roots
    (tmp_path / "alias").symlink_to(other)
    (main / "inner").mkdir()
    found = extra_roots([str(other), str(tmp_path / "alias"), str(main / "inner")], main, protected=())
    assert found == (other,)  # the alias is the same folder; one inside the workspace adds nothing


def test_a_file_or_missing_extra_root_is_a_config_error(roots: tuple[Path, Path, Path]) -> None:
    main, other, _ = roots
    (other / "f.txt").write_text("x")
    cases = ((other / "f.txt", "not a directory"), (other / "nope", "does not exist"), (Path("/usr"), "system"))
    for bad, why in cases:
        with pytest.raises(ConfigError, match=why):
            extra_roots([str(bad)], main, protected=())
