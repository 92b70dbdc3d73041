"""patch_apply called as the model calls it, and the unified-diff parser it rests on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.edit.patch import apply_hunks, parse_patch
from tests.conftest import call

SERVICE = (
    "import logging\n"
    "\n"
    "log = logging.getLogger(__name__)\n"
    "\n"
    "\n"
    "def connect(url):\n"
    '    log.info("connecting to %s", url)\n'
    "    session = open_session(url)\n"
    "    session.timeout = 5\n"
    "    return session\n"
    "\n"
    "\n"
    "def close(session):\n"
    "    session.close()\n"
    '    log.info("closed")\n'
)


def put(ws: Path, ctx: ToolContext, name: str, data: bytes | str) -> Path:
    path = ws / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    assert call(ctx, "read_file", file_path=name).success
    return path


def patch(ctx: ToolContext, text: str, name: str = "service.py") -> ToolResult:
    return call(ctx, "patch_apply", file_path=name, patch=text)


# ---- applying -----------------------------------------------------------------------------------------


def test_a_well_formed_patch_applies_and_shows_the_changed_lines(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "service.py", SERVICE)
    result = patch(
        ctx,
        "--- a/service.py\n+++ b/service.py\n@@ -8,3 +8,3 @@\n     session = open_session(url)\n"
        "-    session.timeout = 5\n+    session.timeout = 30\n     return session\n",
    )
    assert result.success, result.render()
    assert path.read_text() == SERVICE.replace("timeout = 5", "timeout = 30")
    assert "     9\t    session.timeout = 30" in result.content
    assert result.message == "Patched service.py: 1 hunk applied."
    assert result.data["found"] == ["stated_line"]


def test_several_hunks_apply_together(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "service.py", SERVICE)
    result = patch(
        ctx,
        "@@ -1,1 +1,2 @@\n import logging\n+import time\n@@ -14,2 +15,2 @@\n-    session.close()\n+    session.stop()\n"
        '     log.info("closed")\n',
    )
    assert result.success and result.data["hunks"] == 2
    assert path.read_text() == SERVICE.replace("import logging\n", "import logging\nimport time\n").replace(
        "session.close()", "session.stop()"
    )


def test_stale_line_numbers_are_found_nearby_and_reported(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "service.py", "".join(f"# comment {i}\n" for i in range(30)) + SERVICE)
    result = patch(ctx, "@@ -14,1 +14,1 @@\n-    session.close()\n+    session.stop()\n")
    assert result.success
    assert "found at line 44, not 14" in result.message
    assert result.data["found"] == ["search"]
    assert "session.stop()" in path.read_text()


def test_a_later_hunk_is_expected_as_far_off_as_the_one_before(ctx: ToolContext, ws: Path) -> None:
    text = "".join(f"line {i}\n" for i in range(1, 200))
    put(ws, ctx, "f.txt", text)
    result = patch(
        ctx, "@@ -11,1 +11,1 @@\n-line 21\n+LINE 21\n@@ -160,1 +160,1 @@\n-line 170\n+LINE 170\n", name="f.txt"
    )
    assert result.success
    assert result.data["found"] == ["search", "stated_line"]


def test_hunk_counts_are_not_trusted_over_the_body(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "service.py", SERVICE)
    assert patch(ctx, "@@ -13,9 +13,1 @@\n def close(session):\n-    session.close()\n+    session.end()\n").success
    assert "session.end()" in path.read_text()


def test_blank_context_lines_without_their_space_and_a_fence_are_accepted(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "service.py", SERVICE)
    fenced = "```diff\n@@ -10,4 +10,4 @@\n     return session\n\n\n-def close(session):\n+def close(s):\n```\n"
    result = patch(ctx, fenced)
    assert result.success, result.render()
    assert "def close(s):" in path.read_text()


def test_whitespace_tolerant_matching_is_the_last_resort_and_reindents(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "run.go", "func run() {\n\tif err != nil {\n\t\treturn err\n\t}\n}\n")
    spaced = "@@ -2,2 +2,3 @@\n     if err != nil {\n+        log(err)\n         return err\n"
    result = patch(ctx, spaced, name="run.go")
    assert result.success
    assert "matched ignoring whitespace" in result.message
    assert path.read_text() == "func run() {\n\tif err != nil {\n\t\tlog(err)\n\t\treturn err\n\t}\n}\n"


def test_crlf_bom_and_mode_are_kept(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.txt", b"\xef\xbb\xbfa\r\nb\r\nc\r\n")
    os.chmod(path, 0o640)
    assert patch(ctx, "@@ -2 +2 @@\n-b\n+B\n", name="f.txt").success
    assert path.read_bytes() == b"\xef\xbb\xbfa\r\nB\r\nc\r\n"
    assert path.stat().st_mode & 0o777 == 0o640


def test_no_newline_markers_are_honoured(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.txt", "a\nb\n")
    assert patch(ctx, "@@ -2 +2 @@\n-b\n+c\n\\ No newline at end of file\n", name="f.txt").success
    assert path.read_bytes() == b"a\nc"
    assert patch(ctx, "@@ -2 +2 @@\n-c\n\\ No newline at end of file\n+d\n", name="f.txt").success
    assert path.read_bytes() == b"a\nd\n"


def test_a_file_without_final_newline_keeps_it_when_the_marker_is_left_out(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.txt", "a\nb")
    assert patch(ctx, "@@ -2 +2 @@\n-b\n+c\n", name="f.txt").success
    assert path.read_bytes() == b"a\nc"


# ---- creating files -----------------------------------------------------------------------------------


def test_dev_null_creates_a_file_and_its_folders_without_a_read(ctx: ToolContext, ws: Path) -> None:
    creation = "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+def f():\n+    return 1\n"
    result = patch(ctx, creation, name="pkg/new.py")
    assert result.success and result.data["created"] is True
    assert (ws / "pkg" / "new.py").read_text() == "def f():\n    return 1\n"
    assert "Created pkg/new.py (2 lines)" in result.message


def test_dev_null_on_an_existing_file_is_refused(ctx: ToolContext, ws: Path) -> None:
    (ws / "old.py").write_text("x\n")
    result = patch(ctx, "--- /dev/null\n+++ b/old.py\n@@ -0,0 +1 @@\n+y\n", name="old.py")
    assert result.code == ErrorCode.PATCH_FAILED and "already exists" in result.error
    assert (ws / "old.py").read_text() == "x\n"


# ---- refusals -----------------------------------------------------------------------------------------


def test_the_read_gate_applies(ctx: ToolContext, ws: Path) -> None:
    (ws / "service.py").write_text(SERVICE)
    assert patch(ctx, "@@ -1 +1 @@\n-import logging\n+import os\n").code == ErrorCode.NOT_READ
    call(ctx, "read_file", file_path="service.py")
    (ws / "service.py").write_text(SERVICE.replace("import logging", "import logging as log"))
    assert patch(ctx, "@@ -1 +1 @@\n-import logging\n+import os\n").code == ErrorCode.STALE_READ


def test_a_header_naming_another_file_is_invalid(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "service.py", SERVICE)
    result = patch(ctx, "--- a/client.py\n+++ b/client.py\n@@ -1 +1 @@\n-import logging\n+import os\n")
    assert result.code == ErrorCode.INVALID_PATCH and "'a/client.py'" in result.error


def test_header_paths_that_leave_the_workspace_are_rejected(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "service.py", SERVICE)
    result = patch(ctx, "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root\n+toor\n")
    assert result.code == ErrorCode.OUTSIDE_WORKSPACE
    outside = patch(ctx, "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+x\n", name="../x")
    assert outside.code == ErrorCode.OUTSIDE_WORKSPACE


def test_a_failed_hunk_names_itself_shows_closest_lines_and_writes_nothing(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "service.py", SERVICE)
    result = patch(
        ctx,
        "@@ -1 +1 @@\n-import logging\n+import os\n"
        "@@ -13,3 +13,3 @@ def close\n def close(session, force):\n-    session.close()\n+    session.stop()\n",
    )
    assert result.code == ErrorCode.PATCH_FAILED
    assert result.error.startswith("hunk 2 of 2 (@@ -13,3 +13,3 @@ def close) did not apply to service.py")
    assert "    13\tdef close(session, force):" in result.content
    assert "The most similar part of service.py is lines 13-14" in result.content
    assert "Hunks that would have applied: 1 (at line 1). Nothing was written." in result.content
    assert path.read_text() == SERVICE


def test_an_ambiguous_hunk_lists_where_it_matches(ctx: ToolContext, ws: Path) -> None:
    text = "a\nx\ny\nb\nx\ny\n"
    path = put(ws, ctx, "f.txt", text)
    result = patch(ctx, "@@ -40,2 +40,2 @@\n x\n-y\n+z\n", name="f.txt")
    assert result.code == ErrorCode.PATCH_FAILED
    assert "occur 2 times (at lines 2, 5)" in result.error
    assert path.read_text() == text


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("just some text\n", "before any @@ hunk header"),
        ("--- a/service.py\n+++ b/service.py\n", "no @@ hunk"),
        ("@@ -1 +1 @@\nimport logging\n", "does not start with ' ', '-' or '+'"),
        ("@@ -1 +1 @@\n-a\n+b\n--- a/other.py\n+++ b/other.py\n@@ -1 +1 @@\n-c\n+d\n", "more than one file"),
        ("--- a/service.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-import logging\n", "delete_file"),
        ("@@ -x +y @@\n-a\n", "not a valid hunk header"),
    ],
)
def test_malformed_patches_are_invalid_and_say_why(ctx: ToolContext, ws: Path, text: str, fragment: str) -> None:
    path = put(ws, ctx, "service.py", SERVICE)
    result = patch(ctx, text)
    assert result.code == ErrorCode.INVALID_PATCH
    assert fragment in result.error
    assert path.read_text() == SERVICE


def test_a_patch_of_only_context_changes_nothing(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "service.py", SERVICE)
    assert patch(ctx, "@@ -1,2 +1,2 @@\n import logging\n \n").code == ErrorCode.NO_CHANGE


# ---- the pure functions -------------------------------------------------------------------------------


def test_parser_reads_headers_prefixes_and_markers() -> None:
    parsed = parse_patch(
        "diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\t2024-01-01\n+++ b/x.py\n"
        "@@ -1,2 +1,2 @@ def f\n a\n-b\n"
        "\\ No newline at end of file\n+c\n"
    )
    assert (parsed.old_path, parsed.new_path) == ("a/x.py", "b/x.py")
    hunk = parsed.hunks[0]
    assert (hunk.old_start, hunk.old_count, hunk.new_count) == (1, 2, 2)
    assert hunk.old == ["a", "b"] and hunk.old_no_newline and not hunk.new_no_newline


def test_trailing_blank_lines_of_the_patch_text_are_not_context() -> None:
    assert parse_patch("@@ -1,2 +1,2 @@\n a\n-b\n+c\n\n\n").hunks[0].old == ["a", "b"]
    assert parse_patch("@@ -1,3 +1,3 @@\n a\n-b\n+c\n\n").hunks[0].old == ["a", "b", ""]


def test_hunks_that_would_overlap_are_not_placed_twice() -> None:
    hunks = parse_patch("@@ -1 +1 @@\n-x\n+y\n@@ -1 +1 @@\n-x\n+z\n").hunks
    with pytest.raises(ToolError) as caught:
        apply_hunks("x\n", hunks, label="f")
    assert caught.value.code == ErrorCode.PATCH_FAILED and "hunk 2 of 2" in caught.value.error


def test_a_patch_of_many_ambiguous_hunks_is_bounded(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 7: 5,000 ambiguous hunks took about 115 s; now hunks are capped and an ambiguous
    hunk stops searching once it is known to be ambiguous."""
    (ws / "a.txt").write_text("a\n" * 50_000)
    assert call(ctx, "read_file", file_path="a.txt").success
    many = call(ctx, "patch_apply", file_path="a.txt", patch="@@\n-a\n+b\n" * 1001)
    assert many.code == "invalid_arguments" and "1001 hunks" in (many.error or "")
    ambiguous = call(ctx, "patch_apply", file_path="a.txt", patch="@@ -99999 +99999 @@\n-a\n+b\n")
    assert ambiguous.code == "patch_failed" and "occur at least " in (ambiguous.error or "")
    assert (ws / "a.txt").read_text() == "a\n" * 50_000


def test_replace_all_over_many_matches_reports_the_right_lines(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 7: the result view counted lines from the start for every match (quadratic)."""
    (ws / "a.txt").write_text("keep\n" + "x = 1\n" * 100_000)
    assert call(ctx, "read_file", file_path="a.txt").success
    result = call(ctx, "str_replace", file_path="a.txt", old_str="x = 1", new_str="y = 2", replace_all=True)
    assert result.success and "100000 replacements" in result.message + result.content
    assert "     2\ty = 2" in result.content
    assert (ws / "a.txt").read_text() == "keep\n" + "y = 2\n" * 100_000
