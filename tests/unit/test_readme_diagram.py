"""The README's Mermaid diagram is the current graph, character for character."""

import re
from pathlib import Path

from llm_qualitative_sort.studio import graph

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCK = re.compile(
    r"<!-- graph:start -->\s*```mermaid\n(?P<diagram>.*?)```\s*<!-- graph:end -->", re.DOTALL
)


def test_readme_diagram_matches_the_graph() -> None:
    found = BLOCK.search(README.read_text(encoding="utf-8"))
    assert found, "README.md needs a ```mermaid block between <!-- graph:start/end --> markers"
    expected = graph.get_graph().draw_mermaid()
    assert found["diagram"].strip() == expected.strip(), (
        "README.md's diagram is stale; replace the block with the output of "
        "`python -c \"from llm_qualitative_sort.studio import graph; "
        "print(graph.get_graph().draw_mermaid())\"`"
    )
