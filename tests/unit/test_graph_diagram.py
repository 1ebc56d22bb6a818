"""The documented Mermaid diagram (docs/concepts/graph.md) is the current graph, exactly."""

import re
from pathlib import Path

from llm_qualitative_sort.studio import graph

PAGE = Path(__file__).resolve().parents[2] / "docs" / "concepts" / "graph.md"
BLOCK = re.compile(
    r"<!-- graph:start -->\s*```mermaid\n(?P<diagram>.*?)```\s*<!-- graph:end -->", re.DOTALL
)


def test_documented_diagram_matches_the_graph() -> None:
    found = BLOCK.search(PAGE.read_text(encoding="utf-8"))
    assert found, (
        "docs/concepts/graph.md needs a ```mermaid block between <!-- graph:start/end --> markers"
    )
    expected = graph.get_graph().draw_mermaid()
    assert found["diagram"].strip() == expected.strip(), (
        "docs/concepts/graph.md's diagram is stale; replace the block with the output of "
        "`python -c \"from llm_qualitative_sort.studio import graph; "
        "print(graph.get_graph().draw_mermaid())\"`"
    )
