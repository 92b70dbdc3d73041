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


# Model families that take images (checked against the model name the provider is sent). Text-only members of
# these families (Qwen2.5-Coder, Llama 3.1, gpt-oss) are left out by the patterns themselves.
VISION_FAMILIES = re.compile(
    r"gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|(^|[/:])o[34]\b|claude|gemini|gemma-?3|qwen[\d.]*-?vl|qwen3-vl|qvq|llava|bakllava"
    r"|llama-?3\.2-vision|llama-?4|pixtral|mistral-small-3\.[12]|mistral-medium|minicpm-v|internvl|moondream|glm-4(\.\d)?v"
    r"|phi-?3\.5-vision|phi-?4-multimodal|grok-(2-)?vision|kimi-vl",
    re.IGNORECASE,
)


def supports_images_for(model: str | None, configured: bool | None = None) -> bool:
    """Whether to send images: the configured answer, else whether the model is of a known vision family."""
    if configured is not None:
        return configured
    name = model or ""
    return VISION_FAMILIES.search(name) is not None and "gpt-oss" not in name.lower()


# The tool-call dialect each family writes when a server leaves its calls in the text: the parser for it is
# tried first, so the family's own reading wins where two dialects could read the same text, the family's
# lenient forms count (Functionary's first call without `>>>`, GLM's call with no arguments, OLMo's calls
# without brackets), and a broken block is answered in the family's format. First match wins.
DIALECT_FAMILIES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), dialect)
    for pattern, dialect in (
        (r"gpt-oss", "harmony"),
        (r"qwen3-?coder|qwen3\.5|qwen3-next", "qwen3_coder"),
        (r"deepseek-?v3\.2(?!-?exp)|deepseek-?v4", "deepseek_v32"),
        (r"deepseek-?v3\.[12]|deepseek-?chat-?v3\.1|deepseek-v3-?1", "deepseek_v31"),
        (r"deepseek-?r1", "deepseek_r1"),
        (r"deepseek", "deepseek_v3"),
        (r"kimi|moonshot", "kimi_k2"),
        (r"glm-?4\.[7-9]|glm-?[5-9](?:\b|\.)", "glm47"),
        (r"glm-?4\.[56]|glm-?4-?moe", "glm45"),
        (r"minimax-?m[1-9]", "minimax_m2"),
        (r"minimax", "minimax"),
        (r"functionary", "functionary_v3"),
        (r"command-?r7b|command-?a|c4ai-command", "command_r7b"),
        (r"internlm|intern-?s1", "internlm"),
        (r"xlam", "xlam"),
        (r"jamba", "jamba"),
        (r"hunyuan", "hunyuan"),
        (r"granite", "granite"),
        (r"olmo", "olmo"),
        (r"functiongemma", "functiongemma"),
        (r"gemma", "gemma"),
        (r"hermes|nous", "hermes"),
        (r"llama-?3\.2|llama3\.2|llama-?4|llama4|toolace", "pythonic"),
        (r"llama", "llama3_json"),
        (r"mistral|mixtral|devstral|codestral|magistral|ministral|pixtral", "mistral"),
        (r"qwen|qwq", "hermes"),
    )
)


def text_call_dialect_for(model: str | None) -> str | None:
    """The tool-call dialect `model`'s family writes in its text, or None for a family we do not know."""
    for pattern, dialect in DIALECT_FAMILIES:
        if model and pattern.search(model):
            return dialect
    return None
