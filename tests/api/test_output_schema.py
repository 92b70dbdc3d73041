"""`Options.output_schema` in the Python API: a dict or a path; the retry; `Result.structured_output`; a clean
failure when the answer never validates; a bad schema raises ConfigError before any request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sneakycode
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import finish

TITLES = {"type": "object", "properties": {"titles": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
          "required": ["titles"]}


def options(server: ScriptedServer, repo: Path, **more: Any) -> sneakycode.Options:
    return sneakycode.Options(workspace=repo, base_url=server.base_url, model="qwen2.5-coder-7b", api_key="k",
                              isolated=True, **{"settings": {"retry_backoff": 0.01}, **more})


def test_a_dict_schema_gets_one_retry_and_structured_output(server: ScriptedServer, repo: Path) -> None:
    server.add_steps([{"content": "The titles are: Calc"}, finish('{"titles": ["Calc"]}')])
    seen: list[str] = []
    with sneakycode.Session(options(server, repo, output_schema=TITLES,
                                    on_event=lambda e: seen.append(e.get("message", "")))) as session:
        result = session.run("name the modules")
    assert result.status == "finished" and result.structured_output == {"titles": ["Calc"]}
    assert result.to_dict()["structured_output"] == {"titles": ["Calc"]} and result.error_code is None
    assert any("output schema" in message for message in seen)
    assert "the answer is not JSON" in server.chat_requests[1]["messages"][-1]["content"]


def test_every_request_of_a_session_is_checked_and_gets_its_own_retry(server: ScriptedServer, repo: Path) -> None:
    server.add_steps([finish('{"titles": []}'), finish('{"titles": ["a"]}'),
                      finish("no"), finish('{"titles": ["b"]}')])
    with sneakycode.Session(options(server, repo, output_schema=TITLES)) as session:
        first, second = session.run("one"), session.run("two")
    assert first.structured_output == {"titles": ["a"]} and second.structured_output == {"titles": ["b"]}
    assert len(server.chat_requests) == 4


def test_a_path_schema_never_matched_ends_as_a_coded_error(server: ScriptedServer, repo: Path,
                                                            tmp_path: Path) -> None:
    schema = tmp_path / "titles.json"
    schema.write_text(json.dumps(TITLES))
    server.add_steps([finish('{"names": ["Calc"]}'), {"content": '{"titles": "Calc"}'}, finish("unused")])
    result = sneakycode.run("name the modules", options(server, repo, output_schema=str(schema)))
    assert (result.status, result.success, result.error_code) == ("error", False, "output_schema_mismatch")
    assert result.structured_output is None and "'Calc' is not of type 'array'" in result.message
    assert result.resume == f"--resume {result.session_id}"
    assert len(server.chat_requests) == 2


def test_no_schema_means_no_check_and_no_structured_output(server: ScriptedServer, repo: Path) -> None:
    server.add_steps([finish('{"titles": []}')])
    result = sneakycode.run("hi", options(server, repo))
    assert result.status == "finished" and result.structured_output is None
    assert "# Output format" not in server.chat_requests[0]["messages"][0]["content"]


@pytest.mark.parametrize("schema", [{"type": "no-such-type"}, {"properties": []}])
def test_an_invalid_schema_raises_config_error_before_any_request(server: ScriptedServer, repo: Path,
                                                                   schema: dict[str, Any]) -> None:
    with pytest.raises(sneakycode.ConfigError, match="not a valid JSON Schema"):
        sneakycode.Session(options(server, repo, output_schema=schema))
    assert server.requests == []


def test_a_schema_ref_outside_the_schema_raises_a_coded_config_error_and_fetches_nothing(
        server: ScriptedServer, repo: Path) -> None:
    """Hardening round three, class 5: `$ref` to a URL (here a private address) is refused before any request;
    nothing is fetched. A ref inside the schema (`#/$defs/...`) still works."""
    with ScriptedServer({"steps": []}) as target:
        schema = {"type": "object", "properties": {"titles": {"$ref": f"{target.base_url}/titles.json"}}}
        with pytest.raises(sneakycode.ConfigError, match=r"\[output_schema_invalid\].*\$ref 'http://127\.0\.0\.1"):
            sneakycode.Session(options(server, repo, output_schema=schema))
        assert target.requests == [] and server.requests == []
    local = {"$defs": {"names": TITLES["properties"]["titles"]}, "type": "object",  # type: ignore[index]
             "properties": {"titles": {"$ref": "#/$defs/names"}}, "required": ["titles"]}
    server.add_steps([finish('{"titles": ["Calc"]}')])
    assert sneakycode.run("hi", options(server, repo, output_schema=local)).structured_output == {"titles": ["Calc"]}


def test_an_answer_nested_past_the_limit_is_a_mismatch_not_a_recursion_error(server: ScriptedServer,
                                                                              repo: Path) -> None:
    """Hardening round three, class 5: a final answer nested 3,000 deep (past the JSON decoder's and the
    validator's recursion) is reported back to the model, then ends as output_schema_mismatch."""
    tree = {"type": "array", "items": {"$ref": "#"}}
    server.add_steps([finish("[" * 3_000 + "]" * 3_000), finish("[" * 80 + "]" * 80)])
    roomy = {"retry_backoff": 0.01, "context_window": 65_536}  # the long answer is not compacted away
    result = sneakycode.run("hi", options(server, repo, output_schema=tree, settings=roomy))
    assert (result.status, result.error_code) == ("error", "output_schema_mismatch")
    assert "nests deeper than 64 levels" in server.chat_requests[1]["messages"][-1]["content"]
    assert "nests deeper than 64 levels" in result.message
