"""update_tasks: replaces the session's task list, validates it whole, and renders it for the model."""

from __future__ import annotations

from sneakycode.tools.base import Tier, ToolContext
from sneakycode.tools.registry import get_tool
from tests.conftest import call

TASKS = [
    {"id": "1", "content": "Read the parser", "status": "completed"},
    {"id": "2", "content": "Add the --verbose flag", "status": "in_progress"},
    {"id": "3", "content": "Test it", "status": "pending"},
]


def test_the_list_is_replaced_and_rendered_as_a_checklist(ctx: ToolContext) -> None:
    result = call(ctx, "update_tasks", tasks=TASKS)
    assert result.success and ctx.tasks == TASKS
    assert result.content.splitlines() == ["[x] 1. Read the parser", "[>] 2. Add the --verbose flag", "[ ] 3. Test it"]
    assert "3 tasks (1 completed, 1 in progress, 1 pending)" in result.message
    assert call(ctx, "update_tasks", tasks=TASKS[2:]).success and ctx.tasks == TASKS[2:]


def test_an_empty_list_clears_it(ctx: ToolContext) -> None:
    call(ctx, "update_tasks", tasks=TASKS)
    assert call(ctx, "update_tasks", tasks=[]).success and ctx.tasks == []


def test_repeated_ids_are_refused_and_the_list_is_kept(ctx: ToolContext) -> None:
    call(ctx, "update_tasks", tasks=TASKS)
    result = call(ctx, "update_tasks", tasks=[TASKS[0], {**TASKS[1], "id": "1"}])
    assert result.code is not None and result.code.value == "invalid_arguments"
    assert "repeated: 1" in result.render() and ctx.tasks == TASKS


def test_a_wrong_status_names_the_field_and_the_allowed_values(ctx: ToolContext) -> None:
    result = call(ctx, "update_tasks", tasks=[{"id": "1", "content": "x", "status": "done"}])
    text = result.render()
    assert result.code is not None and result.code.value == "invalid_arguments"
    assert "tasks.0.status" in text and "in_progress" in text


def test_limits_are_enforced_with_a_clear_message(ctx: ToolContext) -> None:
    many = [{"id": str(i), "content": "x", "status": "pending"} for i in range(51)]
    assert "at most 50" in call(ctx, "update_tasks", tasks=many).render()
    long = [{"id": "1", "content": "x" * 501, "status": "pending"}]
    assert "at most 500" in call(ctx, "update_tasks", tasks=long).render()
    blank = [{"id": "1", "content": "  ", "status": "pending"}]
    assert "empty" in call(ctx, "update_tasks", tasks=blank).render()


def test_update_tasks_is_auto_approved() -> None:
    found = get_tool("update_tasks")
    assert found is not None and found.tier is Tier.AUTO
