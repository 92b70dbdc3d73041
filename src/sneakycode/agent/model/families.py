"""Which edit style a model family is trained on, so `tools.edit_format = "auto"` offers the one edit tool it
knows best and the request carries one edit tool instead of two.

OpenAI's GPT-4.1, GPT-5, o3/o4 and Codex models are trained on diff-style patches (OpenAI's own agents give
them an apply-patch tool); the open families (Qwen, Llama, Mistral/Devstral, DeepSeek, Gemma, Phi, GLM, Kimi,
Granite, SmolLM) and Claude are trained on, or do best with, an exact string-replacement editor. A family we
do not know gets both, as before.
"""

from __future__ import annotations

import re

PATCH_FAMILIES = re.compile(r"(^|[/:])(gpt-4\.1|gpt-5|o3|o4|codex)", re.IGNORECASE)
REPLACE_FAMILIES = re.compile(
    r"qwen|llama|mistral|devstral|codestral|mixtral|deepseek|gemma|phi|glm|kimi|granite|smollm|claude|starcoder",
    re.IGNORECASE,
)


def edit_format_for(model: str | None, configured: str = "auto") -> str:
    """The edit format to offer: the configured one, or for `auto` the model family's (`both` if unknown)."""
    if configured != "auto":
        return configured
    name = model or ""
    if PATCH_FAMILIES.search(name) and "gpt-oss" not in name.lower():
        return "patch"
    if REPLACE_FAMILIES.search(name):
        return "replace"
    return "both"
