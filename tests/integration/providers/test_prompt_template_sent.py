"""A user's prompt template reaches the real clients' requests, texts fenced as data."""

from __future__ import annotations

from pathlib import Path

from _fakes import FakeJudge, GeminiDialect, OpenAIDialect, serve, strings
from _setup import KEY, make_provider
from test_sort import sorter

from llm_qualitative_sort import PromptTemplate

TEMPLATE = PromptTemplate(
    system="You grade answers to: {{ context.question }}\nRubric: {{ context.rubric }}",
    user="Reference: {{ context.reference }}\n\n{{ text_a }}\n\n{{ text_b }}\n\n"
         "Fence tag {{ tag }}. Reply with JSON {\"reasoning\": ..., \"winner\": \"A\" or \"B\"}.",
    name="grading",
)
CONTEXT = {"question": "What is 2+2?", "rubric": "correctness first", "reference": "4"}
ITEMS = ["It is 4.", "It is 5.", "{{ context.rubric }} {{ 6 * 7 }}", "Four, of course.",
         "{% raw %}22{% endraw %}", "No idea."]


async def test_the_clients_send_the_rendered_template(served, tmp_path: Path) -> None:
    kind = served[0]
    google = kind == "google"
    judge = FakeJudge({item: float(i) for i, item in enumerate(ITEMS)}, KEY,
                      "gemini-3.0" if google else "gpt-5.1")
    server, url = serve(judge, GeminiDialect if google else OpenAIDialect)
    try:
        base = url + ("/v1beta" if google else "/v1")
        result = await sorter(make_provider(kind, base), tmp_path, prompt=TEMPLATE,
                              context=CONTEXT).sort(ITEMS)
    finally:
        server.shutdown()
        server.server_close()
    assert judge.seen and result.statistics.failed_calls == 0
    for seen in judge.seen:
        sent = "\n".join(strings(seen.body))
        assert "You grade answers to: What is 2+2?\nRubric: correctness first" in sent
        assert "Reference: 4\n\n<<<BEGIN TEXT A" in sent
        assert "You are a careful" not in sent  # not the default prompt
        assert seen.texts is not None and set(seen.texts) <= set(ITEMS)
    # Items holding template syntax were shown as they are, never rendered.
    shown = {text for seen in judge.seen if seen.texts for text in seen.texts}
    assert "{{ context.rubric }} {{ 6 * 7 }}" in shown and "{% raw %}22{% endraw %}" in shown
    assert result.rankings[0] == (1, [ITEMS[-1]])  # the fake's highest hidden score
