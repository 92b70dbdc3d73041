"""The reference graph kept between builds: after an edit, updating only the edited file's row gives the
graph a rebuild from scratch would give."""

from __future__ import annotations

from pytest import approx

from sneakycode.tools.codemap.graph import ReferenceGraph
from sneakycode.tools.codemap.tags import extract_tags

FILES = {
    "a.py": "def parse_config(x):\n    return x\n\ndef _private():\n    pass\n",
    "b.py": "from a import parse_config\n\ndef run():\n    parse_config(1)\n    parse_config(2)\n",
    "c.py": "from a import parse_config, _private\n\nclass Loader:\n    def load(self):\n"
            "        _private()\n        return run()\n",
}


def tags_of(files: dict[str, str]) -> dict[str, object]:
    return {path: extract_tags("python", text.encode()) for path, text in files.items()}


def same(left: ReferenceGraph, right: ReferenceGraph) -> None:
    assert left.paths == right.paths
    assert [{k: approx(v) for k, v in row.items()} for row in left.rows] == right.rows
    assert [{k: approx(v) for k, v in names.items()} for names in left.incoming] == right.incoming


def test_an_edit_of_a_body_updates_one_row_to_what_a_rebuild_gives() -> None:
    graph = ReferenceGraph()
    graph.update(tags_of(FILES), FILES)  # type: ignore[arg-type]
    assert graph.rows[graph.index["b.py"]] == {graph.index["a.py"]: approx(3**0.5 * 10)}  # 3 uses, specific
    edited = {**FILES, "b.py": FILES["b.py"].replace("    parse_config(2)\n", "")}
    rows_before = graph.rows
    graph.update(tags_of(edited), {"b.py"})  # type: ignore[arg-type]
    assert graph.rows is rows_before  # updated in place, not rebuilt
    fresh = ReferenceGraph()
    fresh.update(tags_of(edited), edited)  # type: ignore[arg-type]
    same(graph, fresh)


def test_a_new_definition_rebuilds_and_private_names_weigh_less() -> None:
    graph = ReferenceGraph()
    graph.update(tags_of(FILES), FILES)  # type: ignore[arg-type]
    a, c = graph.index["a.py"], graph.index["c.py"]
    assert graph.incoming[a]["_private"] == approx(2**0.5 * 0.1)  # imported and called once: private
    edited = {**FILES, "b.py": FILES["b.py"] + "\ndef run_more():\n    pass\n"}
    graph.update(tags_of(edited), {"b.py"})  # type: ignore[arg-type]
    fresh = ReferenceGraph()
    fresh.update(tags_of(edited), edited)  # type: ignore[arg-type]
    same(graph, fresh)
    assert graph.index["b.py"] in graph.rows[c]  # c uses run(), which b defines
