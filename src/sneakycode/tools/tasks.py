"""update_tasks: the session's task list, which the model keeps and the user watches.

The list lives in `ctx.tasks`; each call replaces it whole, so the model never has to patch a list it
cannot see. The agent records the new list in the session transcript and shows it to the user.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, ConfigDict

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool

MAX_TASKS = 50
MAX_TASK_CHARS = 500
_MARKS = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}


class TaskItem(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    id: str
    content: str
    status: Literal["pending", "in_progress", "completed"]


class UpdateTasksArgs(ToolArgs):
    tasks: list[TaskItem]


@tool(
    name="update_tasks",
    claude_names=("TodoWrite",),
    tier=Tier.AUTO,
    mcp=False,
    quiet_on_success=True,
    example={"tasks": [{"id": "1", "content": "Add the --verbose flag", "status": "in_progress"}]},
    guidance="For work with several steps keep a task list with update_tasks.",
)
def update_tasks(args: UpdateTasksArgs, ctx: ToolContext) -> ToolResult:
    """Replace the user's task list (send it whole). Multi-step work: one task in_progress, mark each
    completed when done."""
    _check(args.tasks)
    ctx.tasks = [task.model_dump() for task in args.tasks]
    counts = Counter(t.status for t in args.tasks)
    summary = (
        f"Task list updated: {len(args.tasks)} tasks ({counts['completed']} completed, "
        f"{counts['in_progress']} in progress, {counts['pending']} pending)."
    )
    return ToolResult.ok(render_tasks(ctx.tasks), summary, tasks=ctx.tasks)


def _check(tasks: list[TaskItem]) -> None:
    """Limits live here rather than in the schema, which is sent on every request."""
    problems = []
    if len(tasks) > MAX_TASKS:
        problems.append(f"the list has {len(tasks)} tasks; at most {MAX_TASKS} are kept")
    repeated = sorted(task_id for task_id, count in Counter(t.id for t in tasks).items() if count > 1)
    if repeated:
        problems.append(f"task ids must be unique; repeated: {', '.join(repeated)}")
    for task in tasks:
        if not task.id.strip() or not task.content.strip():
            problems.append(f"task {task.id!r} has an empty id or content")
        elif len(task.content) > MAX_TASK_CHARS:
            problems.append(f"task {task.id!r} is {len(task.content)} characters; at most {MAX_TASK_CHARS}")
    if problems:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            "the task list was not changed: " + "; ".join(problems),
            hint="Fix these and send the whole list again (short tasks, unique ids).",
        )


def render_tasks(tasks: list[dict[str, str]]) -> str:
    """One line per task: `[x] id. content` (x done, > in progress, blank pending)."""
    return "\n".join(f"{_MARKS.get(t['status'], '[?]')} {t['id']}. {t['content']}" for t in tasks)
