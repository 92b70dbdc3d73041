"""write_file, make_dir and delete_file: every change atomic, journalled for undo, and reported honestly."""

from __future__ import annotations

import os

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import Preview, ProposedEdit, Tier, ToolArgs, ToolContext, ToolResult, tool
from sneakycode.tools.read import split_lines
from sneakycode.workspace.textfiles import TextFile


class WriteFileArgs(ToolArgs):
    file_path: str
    content: str


def _proposed_write(args: WriteFileArgs, ctx: ToolContext) -> ProposedEdit:
    """The new content against the file as it is now (None before: a new file); nothing is written."""
    ws = ctx.workspace
    real = ws.resolve(args.file_path)
    if not os.path.lexists(real):
        return ProposedEdit(ws.display(real), None, args.content)
    current = ws.read_text(args.file_path)
    incoming = args.content.replace("\r\n", "\n") if current.newline == "\r\n" else args.content
    return ProposedEdit(ws.display(real), current.text, incoming)


def _checked_write(args: WriteFileArgs, ctx: ToolContext) -> TextFile | None:
    """Every check of a write_file call before the write: the file it replaces (None: a new file), or the
    ToolError a run would fail with (the gate's `dry_check` too)."""
    ws = ctx.workspace
    real = ws.resolve(args.file_path)
    if os.path.isdir(real):
        raise ToolError(ErrorCode.IS_DIRECTORY, f"{args.file_path!r} is a directory; give a file path")
    ws.require_unprotected(real, args.file_path)
    if not os.path.lexists(real):
        return None
    # Unlike str_replace and patch_apply, an overwrite of a file changed since the read is refused, not
    # merged: the whole file is the edit, so every outside change would be a conflict with it.
    return ws.require_fresh(args.file_path, real)


@tool(
    name="write_file",
    tier=Tier.CONFIRM,
    edits_files=True,
    paths=("file_path",),
    preview=lambda arguments: Preview(str(arguments.get("content", ""))),
    proposed=_proposed_write,
    dry_check=_checked_write,
    example={"file_path": "app/utils/helpers.py", "content": "def greet():\n    return 'hello'\n"},
)
def write_file(args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
    """Create a file, or overwrite one you have read (parent folders made; encoding and line endings
    kept). For small changes edit instead."""
    # Imported on the first write, not with the tools: the first request needs only their schemas (issue 42).
    from sneakycode.tools.diagnostics.after_edit import diagnose_edit

    ws = ctx.workspace
    real = ws.resolve(args.file_path)
    shown = ws.display(real)
    new_lines = len(split_lines(args.content))
    current = _checked_write(args, ctx)
    if current is None:
        ws.write_text(args.file_path, args.content)
        found = diagnose_edit(ctx, real, None, args.content)
        message = found.add_to(f"Created {shown} ({new_lines} lines).")
        return ToolResult.ok(message=message, created=True, lines=new_lines, **found.data())
    incoming = args.content.replace("\r\n", "\n") if current.newline == "\r\n" else args.content
    if current.text == incoming:
        return ToolResult.ok(message=f"{shown} already has exactly this content; nothing was written.", created=False)
    ws.write_text(args.file_path, incoming, like=current)
    old_lines = len(split_lines(current.text))
    found = diagnose_edit(ctx, real, current.text, incoming)
    message = found.add_to(f"Overwrote {shown} ({old_lines} -> {new_lines} lines).")
    return ToolResult.ok(message=message, created=False, lines=new_lines, **found.data())


class MakeDirArgs(ToolArgs):
    directory_path: str


@tool(
    name="make_dir",
    tier=Tier.CONFIRM,
    edits_files=True,
    paths=("directory_path",),
    directories=("directory_path",),
    example={"directory_path": "app/services/new_module"},
)
def make_dir(args: MakeDirArgs, ctx: ToolContext) -> ToolResult:
    """Create a directory and its missing parents (`mkdir -p`)."""
    ws = ctx.workspace
    real = ws.resolve(args.directory_path)
    shown = ws.display(real)
    if os.path.isdir(real):
        return ToolResult.ok(message=f"{shown}/ already exists; nothing was created.", created=False)
    if not ws.make_dirs(args.directory_path):
        return ToolResult.ok(message=f"{shown}/ already exists; nothing was created.", created=False)
    return ToolResult.ok(message=f"Created directory {shown}/.", created=True)


class DeleteFileArgs(ToolArgs):
    file_path: str


@tool(
    name="delete_file",
    tier=Tier.CONFIRM,
    paths=("file_path",),
    example={"file_path": "app/utils/deprecated.py"},
)
def delete_file(args: DeleteFileArgs, ctx: ToolContext) -> ToolResult:
    """Delete one file (no directory, nothing in .git/ or .sneakycode/); a link is removed, not its target."""
    ws = ctx.workspace
    removed, size = ws.delete_file(args.file_path)
    return ToolResult.ok(message=f"Deleted {ws.display(removed)} ({size} bytes).", deleted=ws.display(removed))
