"""The loop: model turn -> tool calls -> permission gate -> tool -> result -> next turn, behind narrow seams."""
