"""The truncation check: a server that read far fewer prompt tokens than were sent stops the run."""

from __future__ import annotations

import pytest

from sneakycode.agent.model.providers import ModelConfig
from sneakycode.agent.model.truncation import check_prompt_not_truncated, low_prompt_estimate
from sneakycode.errors import ModelError

CONFIG = ModelConfig("ollama", "http://127.0.0.1:11434/v1", "m", "k", context_window=4096,
                     context_window_source="the server (Ollama /api/show num_ctx)")
BIG = [{"role": "system", "content": "x" * 40_000}, {"role": "user", "content": "fix it"}]


def test_an_honest_count_at_three_or_four_characters_per_token_passes() -> None:
    check_prompt_not_truncated(CONFIG, BIG, [], reported=40_000 // 3)
    check_prompt_not_truncated(CONFIG, BIG, [], reported=40_000 // 5)


def test_a_count_near_the_window_for_a_far_larger_prompt_is_context_truncated() -> None:
    with pytest.raises(ModelError) as caught:
        check_prompt_not_truncated(CONFIG, BIG, [], reported=4090)
    assert caught.value.kind == "context_truncated"
    assert "4096 tokens, from the server (Ollama /api/show num_ctx)" in str(caught.value)


def test_a_small_request_is_not_judged() -> None:
    small = [{"role": "user", "content": "y" * 3000}]
    assert low_prompt_estimate(small, []) < 1000
    check_prompt_not_truncated(CONFIG, small, [], reported=1)
