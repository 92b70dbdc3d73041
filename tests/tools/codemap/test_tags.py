"""Every language the map reads: its tag query compiles against the grammar pack, and a small file's
definitions and references come out with their lines."""

from __future__ import annotations

import pytest

from sneakycode.tools.codemap.queries import TAG_QUERIES
from sneakycode.tools.codemap.tags import extract_tags

# language: (source, definitions expected (name, line), a name it references)
SAMPLES: dict[str, tuple[str, set[tuple[str, int]], str]] = {
    "python": ("class Cart:\n    def add_item(self, x):\n        return compute_price(x)\n\nLIMIT = 3\n",
               {("Cart", 1), ("add_item", 2), ("LIMIT", 5)}, "compute_price"),
    "javascript": ("class Cart {\n  addItem(x) { return computePrice(x); }\n}\nfunction total() {}\n"
                   "const fmt = (x) => new Formatter(x);\n",
                   {("Cart", 1), ("addItem", 2), ("total", 4), ("fmt", 5)}, "Formatter"),
    "typescript": ("interface Item { price: number }\nclass Cart {\n  addItem(x: Item): void { computePrice(x); }\n}\n"
                   "type Money = number;\nfunction total(): Money { return 0; }\n",
                   {("Item", 1), ("Cart", 2), ("addItem", 3), ("Money", 5), ("total", 6)}, "computePrice"),
    "tsx": ("function Button(props: Props) { return <div>{render(props)}</div>; }\n",
            {("Button", 1)}, "render"),
    "go": ("package shop\n\ntype Cart struct{}\n\nfunc (c *Cart) AddItem(x int) { computePrice(x) }\n\n"
           "func Total() int { return 0 }\n",
           {("Cart", 3), ("AddItem", 5), ("Total", 7)}, "computePrice"),
    "rust": ("struct Cart;\n\ntrait Priced { fn price(&self) -> u32; }\n\nimpl Cart {\n"
             "    fn add_item(&self) { compute_price(1); }\n}\n",
             {("Cart", 1), ("Priced", 3), ("price", 3), ("add_item", 6)}, "compute_price"),
    "java": ("class Cart {\n  void addItem(Item x) { computePrice(x); }\n}\ninterface Priced {}\n",
             {("Cart", 1), ("addItem", 2), ("Priced", 4)}, "computePrice"),
    "c": ("struct cart { int n; };\n\nint add_item(struct cart *c) { return compute_price(c->n); }\n"
          "typedef int money;\n",
          {("cart", 1), ("add_item", 3), ("money", 4)}, "compute_price"),
    "cpp": ("class Cart {\n public:\n  void addItem(int x);\n};\n\nvoid Cart::addItem(int x) { computePrice(x); }\n",
            {("Cart", 1), ("addItem", 3), ("addItem", 6)}, "computePrice"),
    "ruby": ("module Shop\n  class Cart\n    def add_item(x)\n      compute_price(x)\n    end\n  end\nend\n",
             {("Shop", 1), ("Cart", 2), ("add_item", 3)}, "compute_price"),
    "csharp": ("class Cart {\n  void AddItem(int x) { ComputePrice(x); }\n}\ninterface IPriced {}\n",
               {("Cart", 1), ("AddItem", 2), ("IPriced", 4)}, "ComputePrice"),
    "php": ("<?php\nclass Cart {\n  function addItem($x) { return compute_price($x); }\n}\n"
            "function total() { return 0; }\n",
            {("Cart", 2), ("addItem", 3), ("total", 5)}, "compute_price"),
}


def test_every_language_with_a_query_has_a_sample() -> None:
    assert set(SAMPLES) == set(TAG_QUERIES)


@pytest.mark.parametrize("language", list(SAMPLES))
def test_definitions_and_references_are_found(language: str) -> None:
    source, definitions, reference = SAMPLES[language]
    tags = extract_tags(language, source.encode())
    assert {(d.name, d.line) for d in tags.definitions} == definitions
    assert reference in tags.references
    first = tags.definitions[0]
    assert first.signature == source.splitlines()[first.line - 1].strip()


def test_a_definition_is_not_counted_as_its_own_reference() -> None:
    tags = extract_tags("go", b"package p\n\ntype Cart struct{}\n\nfunc use(c Cart) {}\n")
    assert tags.references.get("Cart") == 1
