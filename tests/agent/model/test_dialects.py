"""Issue 25: every tool-call dialect the serving stacks parse, one parser each, and never a call with its
arguments dropped. Replies are shaped like the serving stacks' own test cases; the conformance corpus
(test_tool_call_corpus.py) measures agreement with them case by case."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sneakycode.agent.model.dialects import DIALECTS
from sneakycode.agent.model.families import text_call_dialect_for
from sneakycode.agent.model.text_call_args import FORMATS
from sneakycode.agent.model.text_tool_calls import held_back_length, parse_text_tool_calls

STR, INT = {"type": "string"}, {"type": "integer"}
SCHEMAS: dict[str, dict[str, Any]] = {
    "read_file": {"type": "object", "properties": {"path": STR, "start_line": INT}, "required": ["path"]},
    "run_command": {"type": "object", "properties": {"command": STR}, "required": ["command"]},
    "get_weather": {"type": "object", "properties": {"city": STR, "days": INT}},
    "noop": {"type": "object", "properties": {}},
    "python": {"type": "object", "properties": {"code": STR}},
}
READ = {"path": "src/app.py"}
LS = {"command": "ls -la"}
PARIS = {"city": "Paris"}


def parsed(content: str, model: str | None = None, **kwargs: Any) -> list[tuple[str, Any]]:
    calls, _rest = parse_text_tool_calls(content, SCHEMAS, model=model, **kwargs)
    return [(c.name, "INVALID" if c.invalid else json.loads(c.arguments)) for c in calls]


@pytest.mark.parametrize(
    "content",
    [
        '<function=read_file>{"path": "src/app.py"}</function>',
        '<tool_call>\n<function=read_file>\n{"path": "src/app.py"}\n</function>\n</tool_call>',
        '<function name="read_file">{"path": "src/app.py"}</function>',
        'Reading it.\n<function=read_file>{"path": "src/app.py"}</function><|eom_id|>',
    ],
)
def test_a_function_tag_with_a_json_body_runs_with_the_arguments_the_model_wrote(content: str) -> None:
    """Issue 25, arguments silently dropped: `<function=NAME>{json}</function>` (Llama 3.1, Functionary,
    Hermes-2-Pro) was read as Qwen3-Coder XML with no parameters and ran NAME with `{}`."""
    assert parsed(content) == [("read_file", READ)]


def test_a_closing_function_tag_inside_a_json_string_does_not_cut_the_arguments() -> None:
    """Issue 25, arguments silently dropped: the JSON body is read as JSON, not up to the first `</function>`."""
    content = '<function=run_command>{"command": "echo \'</function>\'"}</function>'
    assert parsed(content) == [("run_command", {"command": "echo '</function>'"})]


# (reply, text that must be in the format the model is shown): a recognisable block that cannot be read.
UNREADABLE = [
    ('<function=read_file>{"path": </function>', '<function=TOOL>{"KEY": VALUE}</function>'),
    ("<function=read_file>\npath=src/app.py\n</function>", "<function=TOOL>"),
    ('<tool_call>\n{"name": "read_file", "arguments": {"path": 1}}}\n</tool_call>', "<tool_call>"),
    ("<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a.py</arg_value>", "<arg_key>KEY</arg_key>"),
    ('<|python_tag|>{"name": "read_file", "parameters": {"path": ', "<|python_tag|>"),
    ('[TOOL_CALLS]read_file{"path": ', "[TOOL_CALLS]"),
    ('[TOOL_CALLS]read_file[ARGS]', "[TOOL_CALLS]"),
    ('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": <｜tool▁call▁end｜>',
     "<｜tool▁sep｜>"),
    ("<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"path\""
     "<|tool_call_end|><|tool_calls_section_end|>", "<|tool_call_argument_begin|>"),
    ('<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path": <|call|>', "to=functions.TOOL"),
    ('<|tool_call|>[{"name": "read_file", "arguments": {"path": }]', "<|tool_call|>"),
    ('<tool_calls>[{"name": "read_file", "arguments": </tool_calls>', "<tool_calls>"),
    ('>>>read_file\n{"path": ', ">>>TOOL"),
    ('<|START_ACTION|>[{"tool_name": "read_file", "parameters": {]<|END_ACTION|>', "<|START_ACTION|>"),
    ('<|action_start|><|plugin|>{"name": "read_file", "parameters": <|action_end|>', "<|action_start|><|plugin|>"),
    ('<|tool_call>call:read_file{path:src/app.py}<tool_call|>', "call:TOOL{KEY:"),
    ('<minimax:tool_call><invoke name="read_file">path=a.py</invoke></minimax:tool_call>', '<invoke name="TOOL">'),
    ("<|python_start|>[read_file('src/app.py')]<|python_end|>", '[TOOL(KEY="VALUE")]'),
]


@pytest.mark.parametrize(("content", "shown"), UNREADABLE)
def test_a_block_that_cannot_be_read_runs_nothing_and_the_model_is_shown_its_dialects_format(
    content: str, shown: str
) -> None:
    """Issue 25, arguments silently dropped: a recognisable block whose body cannot be read becomes
    `invalid_tool_call` with that dialect's own format, never a call with fewer arguments."""
    calls, _rest = parse_text_tool_calls(content, SCHEMAS)
    assert calls and all(call.invalid for call in calls)
    assert all("Nothing was run" in call.invalid and shown in call.invalid for call in calls)


def test_a_reply_with_one_unreadable_block_runs_none_of_its_calls() -> None:
    """Issue 25, arguments silently dropped: vLLM's Hermes and Llama parsers and llama.cpp run nothing of such
    a reply; running the readable half would run something they would not."""
    reply = ('<tool_call>{"name": "read_file", "arguments": {"path": "src/app.py"}}</tool_call>\n'
             '<tool_call>{"name": "run_command", "arguments": {"command": </tool_call>')
    calls, _rest = parse_text_tool_calls(reply, SCHEMAS)
    assert len(calls) == 2 and all(call.invalid for call in calls)
    assert "could not be read" in calls[0].invalid


def test_a_call_of_a_tool_that_is_not_offered_does_not_stop_the_others() -> None:
    reply = ('<tool_call>{"name": "deploy", "arguments": {}}</tool_call>\n'
             '<tool_call>{"name": "read_file", "arguments": {"path": "src/app.py"}}</tool_call>')
    assert parsed(reply) == [("invalid_tool_call", "INVALID"), ("read_file", READ)]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('[TOOL_CALLS]read_file{"path": "src/app.py"}', [("read_file", READ)]),
        ('[TOOL_CALLS]read_file[CALL_ID]a1b2c3d4e[ARGS]{"path": "src/app.py"}', [("read_file", READ)]),
        ('[TOOL_CALLS]read_file{"path": "src/app.py"}[TOOL_CALLS]run_command{"command": "ls -la"}',
         [("read_file", READ), ("run_command", LS)]),
        ('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "src/app.py"}}][/TOOL_CALLS]',
         [("read_file", READ)]),
        ('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "src/app.py"}}]\n[TOOL_CALLS]',
         [("read_file", READ)]),
        ('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "src/app.py"}}][TOOL_CALLS][{"name": '
         '"run_command", "arguments": {"command": "ls -la"}}]</s>', [("read_file", READ), ("run_command", LS)]),
    ],
)
def test_mistral_calls_in_every_tokenizer_version_and_a_repeated_or_closing_marker_keep_the_good_call(
    content: str, expected: list[tuple[str, Any]]
) -> None:
    """Issue 25, Mistral: `NAME{json}` without `[ARGS]` was rejected, and a second `[TOOL_CALLS]` or a closing
    `[/TOOL_CALLS]` after a good call made the whole reply invalid."""
    assert parsed(content) == expected


@pytest.mark.parametrize(
    "content",
    [
        '{"name": "read_file", "parameters": {"path": "src/app.py"}}; {"name": "run_command", "parameters": '
        '{"command": "ls -la"}}',
        '<|python_tag|>{"name": "read_file", "parameters": {"path": "src/app.py"}};{"name": "run_command", '
        '"parameters": {"command": "ls -la"}}<|eom_id|>',
    ],
)
def test_llama_calls_separated_by_semicolons_all_run(content: str) -> None:
    """Issue 25, Llama 3: several JSON calls separated by `;`."""
    assert parsed(content) == [("read_file", READ), ("run_command", LS)]


@pytest.mark.parametrize(
    "content", ['{"name": "read_file"}', '{"name": "noop"}', '```json\n{"name": "get_weather"}\n```']
)
def test_a_bare_name_without_arguments_is_text_not_a_call(content: str) -> None:
    """Issue 25, Llama 3 (decided, docs/providers.md): the serving stacks require `parameters` or `arguments`
    before they run anything, and so do we."""
    assert parse_text_tool_calls(content, SCHEMAS) == ([], content)


@pytest.mark.parametrize("begin", ["<｜tool▁calls▁begin｜>", "<｜tool_calls_begin｜>", "<｜tool calls begin｜>",
                                   "<|tool▁calls▁begin|>", "<｜tool\\_calls\\_begin｜>"])
def test_deepseek_marker_spellings(begin: str) -> None:
    """Issue 25, DeepSeek: the V3 / V3.1 / R1 markers reach us spelled several ways."""
    v3 = f'{begin}<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{{"path": "src/app.py"}}\n```' \
         "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    v31 = f'{begin}<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{{"path": "src/app.py"}}<｜tool▁call▁end｜>'
    assert parsed(v3) == parsed(v31) == [("read_file", READ)]


def test_deepseek_r1_without_the_first_call_token_runs_only_when_the_call_is_closed() -> None:
    closed = '<｜tool▁calls｜>function<｜tool▁sep｜>read_file\n```json\n{"path": "src/app.py"}\n```<｜tool▁call▁end｜>'
    unclosed = '<｜tool▁calls▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{"path": "src/app.py"}\n```' \
               "<｜tool▁calls▁end｜>"
    assert parsed(closed) == [("read_file", READ)]
    assert parsed(unclosed) == [("invalid_tool_call", "INVALID")]


# One well-formed reply per dialect the issue lists as not parsed before.
NEW_DIALECTS = [
    ('[get_weather(city="Paris"), read_file(path="src/app.py")]', None, [("get_weather", PARIS), ("read_file", READ)]),
    ("<|python_start|>[get_weather(city='Paris')]<|python_end|>", None, [("get_weather", PARIS)]),
    ('<function_calls>get_weather(city="Paris", days=null)\nnoop()</function_calls>', None,
     [("get_weather", {"city": "Paris", "days": None}), ("noop", {})]),
    ("<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
     '{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>', None, [("get_weather", PARIS)]),
    ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n"
     "<arg_value>3</arg_value>\n</tool_call>", None, [("get_weather", {"city": "Paris", "days": 3})]),
    ('<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary '
     'to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>', None, [("get_weather", PARIS)]),
    ('<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]', None, [("get_weather", PARIS)]),
    ('<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>'
     "</tool_calls>", None, [("get_weather", PARIS)]),
    ('<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>', None,
     [("get_weather", PARIS)]),
    ('<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n{"name": "read_file", "arguments": '
     '{"path": "src/app.py"}}\n</tool_calls>', None, [("get_weather", PARIS), ("read_file", READ)]),
    ('>>>get_weather\n{"city": "Paris"}>>>read_file\n{"path": "src/app.py"}', None,
     [("get_weather", PARIS), ("read_file", READ)]),
    ('get_weather\n{"city": "Paris"}', "meetkai/functionary-small-v3.2", [("get_weather", PARIS)]),
    ('<|START_THINKING|>Weather first.<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": '
     '"get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>', None, [("get_weather", PARIS)]),
    ('<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>', None,
     [("get_weather", PARIS)]),
    ('[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "read_file", "arguments": {"path": '
     '"src/app.py"}}]', "Salesforce/Llama-xLAM-2-8b-fc-r", [("get_weather", PARIS), ("read_file", READ)]),
    ('<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
     '<parameter name="days">2</parameter>\n</invoke>\n</minimax:tool_call>', None,
     [("get_weather", {"city": "Paris", "days": 2})]),
    ('<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:2}<tool_call|>', None,
     [("get_weather", {"city": "Paris", "days": 2})]),
    ('<tools>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tools>', None, [("get_weather", PARIS)]),
    ('<json>{"name": "get_weather", "arguments": {"city": "Paris"}}</json>', None, [("get_weather", PARIS)]),
    ('<response>{"name": "get_weather", "arguments": {"city": "Paris"}}</response>', None, [("get_weather", PARIS)]),
    ('```xml\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n```', None,
     [("get_weather", PARIS)]),
    ('functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]', None, [("get_weather", PARIS)]),
    ("Let me check the weather: [get_weather(city='Paris')]", None, [("get_weather", PARIS)]),
    ('I\'ll help with that.\n```json\n[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n```',
     "Salesforce/xLAM-2-8b-fc-r", [("get_weather", PARIS)]),
]


@pytest.mark.parametrize(("content", "model", "expected"), NEW_DIALECTS)
def test_each_dialect_the_serving_stacks_parse_is_read(
    content: str, model: str | None, expected: list[tuple[str, Any]]
) -> None:
    """Issue 25, not parsed at all before: pythonic, Kimi K2, GLM-4.5+, Harmony, Granite, Hunyuan, Jamba,
    MiniMax, Functionary v3, Command R7B, InternLM, xLAM, Gemma and llama.cpp's lenient Hermes variants."""
    assert parsed(content, model) == expected


@pytest.mark.parametrize(
    "content",
    [
        "[run_command(command=__import__('os').system('touch /tmp/pwned'))]",
        "[run_command(command=open('/etc/passwd').read())]",
        "[run_command(command='ls' + ' -la')]",
        "[run_command(**{'command': 'ls'})]",
    ],
)
def test_pythonic_calls_are_read_as_literals_and_never_evaluated(content: str) -> None:
    """Issue 25: pythonic calls are parsed with `ast` on literals only; an expression is never evaluated and
    never becomes a call."""
    assert all(call.invalid for call in parse_text_tool_calls(content, SCHEMAS)[0])


def test_a_positional_pythonic_argument_is_not_dropped() -> None:
    """Issue 25, arguments silently dropped: vLLM drops positional arguments; we do not run such a call."""
    assert parsed("<|python_start|>[read_file('src/app.py')]<|python_end|>") == [("invalid_tool_call", "INVALID")]


@pytest.mark.parametrize(
    ("content", "model", "expected"),
    [
        ("<tool_call>noop</tool_call>", "zai-org/GLM-4.7", [("noop", {})]),
        ("<tool_call>noop</tool_call>", None, [("invalid_tool_call", "INVALID")]),
        ('get_weather\n{"city": "Paris"}', None, []),
        ('get_weather(city="Paris")', "allenai/Olmo-3-7B-Instruct", [("get_weather", PARIS)]),
        ('get_weather(city="Paris")', None, []),
    ],
)
def test_the_model_family_picks_its_dialects_lenient_forms(
    content: str, model: str | None, expected: list[tuple[str, Any]]
) -> None:
    """Issue 25: the dialect is chosen by model family first: a family's own lenient forms count for it alone."""
    assert parsed(content, model) == expected


@pytest.mark.parametrize(
    ("model", "dialect"),
    [("qwen/qwen3-coder-30b", "qwen3_coder"), ("Qwen2.5-7B-Instruct", "hermes"), ("llama3.1:8b", "llama3_json"),
     ("meta-llama/Llama-3.2-3B-Instruct", "pythonic"), ("openai/gpt-oss-120b", "harmony"),
     ("moonshotai/Kimi-K2-Instruct", "kimi_k2"), ("deepseek-ai/DeepSeek-V3.1", "deepseek_v31"),
     ("mistralai/Devstral-Small-2507", "mistral"), ("zai-org/GLM-4.5-Air", "glm45"), ("my-finetune", None)],
)
def test_the_families_table_names_each_familys_dialect(model: str, dialect: str | None) -> None:
    assert text_call_dialect_for(model) == dialect


@pytest.mark.parametrize(
    "content",
    [
        '<think>I will call <tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call></think>Done.',
        '[THINK][TOOL_CALLS]read_file{"path": "a"}[/THINK]No call needed.',
        '<|START_THINKING|><|START_ACTION|>[{"tool_name": "read_file", "parameters": {}}]<|END_ACTION|>'
        "<|END_THINKING|>The file is fine.",
        "Kimi writes <|tool_calls_section_begin|> and then its calls, as the model card shows. That is all.",
        "The Harmony format puts <|channel|>commentary to=functions.x<|message|>{} in a header, see above. Done.",
        'You could call [get_weather(city="Paris")] yourself.',
        'Never call [deploy(target="prod")]',
        "Plain prose with a list [1, 2, 3] and a tag <b>bold</b>.",
    ],
)
def test_reasoning_and_quoted_markup_stay_text(content: str) -> None:
    """Issue 25: unknown text stays text; a block quoted in prose is not a call; reasoning is never read."""
    assert parse_text_tool_calls(content, SCHEMAS) == ([], content)


@pytest.mark.parametrize(
    ("content", "held"),
    [
        ("Checking.<|tool_calls_section_begin|><|tool_call_begin|>", 47), ("Ok <|channel|>commentary", 21),
        ('[get_weather(city="Par', 22), ("[get_wea", 8), ("Sure <|START_ACTION|>[", 17), ("Ok <tool_calls>[", 13),
        ("Ok <|tool_calls_sec", 16), ("Ok >>>get_weather\n{", 16), ("Done <minimax:tool", 13),
        ('Ok <|tool_call>call:get_weather{', 29), ("Ok functools[", 10), ("Python: >>> print(1)", 0),
        ('Let me check: [get_weather(city="Pa', 21), ("See [the docs](https://x.y) for more.", 0),
        ("Looking.<｜DSML｜function_calls>", 22), ("Looking.<｜DSML｜func", 11),
    ],
)
def test_streamed_text_holds_back_the_start_of_every_dialects_block(content: str, held: int) -> None:
    """Issue 25: the new markers are held back like the old ones, so a call's start is never shown."""
    assert held_back_length(content) == held


def test_every_dialect_has_a_format_to_show_and_a_row_in_the_providers_table() -> None:
    from pathlib import Path

    table = (Path(__file__).resolve().parents[3] / "docs" / "providers.md").read_text(encoding="utf-8")
    for dialect in DIALECTS:
        if dialect.name != "reasoning":
            assert f"| {dialect.name} |" in table, dialect.name
    for name in FORMATS:
        assert FORMATS[name].count("TOOL") >= 1, name


DSML = "｜DSML｜"


def test_deepseek_v32_dsml_calls_are_read_even_with_prose_after_them() -> None:
    """Issue 38: DeepSeek V3.2's DSML, text and JSON parameters, several invokes; its tokens are special, so a
    closed block counts with prose after it (as SGLang reads it)."""
    text = (f'Checking both.<{DSML}function_calls>\n<{DSML}invoke name="read_file">\n'
            f'<{DSML}parameter name="file_path" string="true">src/app.py</{DSML}parameter>\n'
            f'<{DSML}parameter name="limit" string="false">20</{DSML}parameter>\n</{DSML}invoke>\n'
            f'<{DSML}invoke name="run_command">{{"command": "ls -la"}}</{DSML}invoke>\n'
            f"</{DSML}function_calls> I will report back.")
    schemas = {"read_file": {"type": "object"}, "run_command": {"type": "object"}}
    calls, rest = parse_text_tool_calls(text, schemas, model="deepseek-ai/DeepSeek-V3.2")
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("read_file", {"file_path": "src/app.py", "limit": 20}), ("run_command", {"command": "ls -la"})]
    assert rest == "Checking both. I will report back."


def test_a_dsml_body_that_cannot_be_read_runs_nothing_and_shows_the_dsml_format() -> None:
    """A parameter without its `string` attribute would lose its value: the reply's calls all stay unrun."""
    text = (f'<{DSML}function_calls><{DSML}invoke name="read_file">'
            f'<{DSML}parameter name="file_path" string="true">a.py</{DSML}parameter></{DSML}invoke>'
            f'<{DSML}invoke name="read_file"><{DSML}parameter name="file_path">b.py</{DSML}parameter>'
            f"</{DSML}invoke></{DSML}function_calls>")
    calls, _ = parse_text_tool_calls(text, {"read_file": {"type": "object"}}, model="deepseek-v3.2")
    assert len(calls) == 2 and all(c.invalid for c in calls)
    assert f'<{DSML}invoke name="TOOL">' in calls[1].invalid and "Nothing was run" in calls[1].invalid
