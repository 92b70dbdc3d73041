"""Images attached at the interactive prompt: `@path` tokens and pasted paths of existing image files."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from sneakycode.cli.ui.attachments import find_attachments


def test_an_at_token_attaches_an_image_in_the_workspace(ws: Path) -> None:
    Image.new("RGB", (40, 20)).save(ws / "shot.png")
    found = find_attachments("what is wrong in @shot.png ?", ws)
    assert found.names == ["shot.png"] and (found.images[0].width, found.images[0].height) == (40, 20)


def test_a_pasted_path_with_escaped_spaces_attaches_the_image(ws: Path, tmp_path: Path) -> None:
    Image.new("RGB", (8, 8)).save(tmp_path / "Screen Shot 1.png")
    pasted = str(tmp_path / "Screen Shot 1.png").replace(" ", "\\ ")
    found = find_attachments(f"{pasted} the button is misaligned", ws)
    assert found.names == [str(tmp_path / "Screen Shot 1.png")] and len(found.images) == 1


def test_other_tokens_stay_text(ws: Path) -> None:
    (ws / "notes.png").write_text("not an image")
    (ws / "src").mkdir()
    found = find_attachments("fix @notes.png and src/ and @missing.png, don't touch shot.png", ws)
    assert found.images == [] and found.problems == []
