"""write_file, make_dir and delete_file: every change atomic, journalled for undo, and reported honestly."""

from __future__ import annotations

from pydantic import Field

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool
from sneakycode.tools.read import split_lines


class WriteFileArgs(ToolArgs):
    file_path: str = Field(description="File path relative to the workspace root.")
    content: str = Field(description="The complete new content of the file.")


@tool(name="write_file", tier=Tier.CONFIRM)
def write_file(args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
    """Create a file, or replace a whole file, with `content` (parent folders are created). To overwrite an
    existing file you must have read it in this session and it must not have changed since; for small
    changes prefer str_replace. The file's encoding, BOM and line endings are kept."""
    ws = ctx.workspace
    real = ws.resolve(args.file_path)
    shown = ws.display(real)
    new_lines = len(split_lines(args.content))
    if real.is_dir():
        raise ToolError(ErrorCode.IS_DIRECTORY, f"{args.file_path!r} is a directory; give a file path")
    if not real.exists():
        ws.write_text(args.file_path, args.content)
        return ToolResult.ok(message=f"Created {shown} ({new_lines} lines).", created=True, lines=new_lines)
    current = ws.require_fresh(args.file_path, real)
    incoming = args.content.replace("\r\n", "\n") if current.newline == "\r\n" else args.content
    if current.text == incoming:
        return ToolResult.ok(message=f"{shown} already has exactly this content; nothing was written.", created=False)
    ws.write_text(args.file_path, incoming, like=current)
    old_lines = len(split_lines(current.text))
    return ToolResult.ok(
        message=f"Overwrote {shown} ({old_lines} -> {new_lines} lines).", created=False, lines=new_lines
    )


class MakeDirArgs(ToolArgs):
    directory_path: str = Field(description="Directory path relative to the workspace root.")


@tool(name="make_dir", tier=Tier.CONFIRM)
def make_dir(args: MakeDirArgs, ctx: ToolContext) -> ToolResult:
    """Create a directory and any missing parent directories (like `mkdir -p`). An existing directory is
    fine; an existing file at that path is an error."""
    ws = ctx.workspace
    real = ws.resolve(args.directory_path)
    shown = ws.display(real)
    if real.is_dir():
        return ToolResult.ok(message=f"{shown}/ already exists; nothing was created.", created=False)
    ws.require_unprotected(real, args.directory_path)
    ws.make_parents(real, args.directory_path)
    ws.make_dir(real, args.directory_path)
    return ToolResult.ok(message=f"Created directory {shown}/.", created=True)


class DeleteFileArgs(ToolArgs):
    file_path: str = Field(description="File path relative to the workspace root.")


@tool(name="delete_file", tier=Tier.CONFIRM)
def delete_file(args: DeleteFileArgs, ctx: ToolContext) -> ToolResult:
    """Delete one file (a symbolic link is removed itself, not its target). Directories, the workspace root
    and anything in .git/ are never deleted. The deletion can be undone with `sneakycode undo`."""
    ws = ctx.workspace
    removed, size = ws.delete_file(args.file_path)
    return ToolResult.ok(message=f"Deleted {ws.display(removed)} ({size} bytes).", deleted=ws.display(removed))
