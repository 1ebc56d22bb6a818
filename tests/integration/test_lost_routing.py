"""A stop can keep a node's writes but lose its routing; the run must resume all the same.

LangGraph saves a node's state updates and the choice of the next node as writes of one
task. A SIGTERM landing between them (seen on a real CLI process: the update node's writes
saved, the conditional edge's not) left a run that looked finished without a ranking. This
test builds that state on purpose: round 1 compared, the update's writes saved by hand as
LangGraph would, its routing missing.
"""

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.graph import TournamentContext, build_graph
from llm_qualitative_sort.graph.nodes.update import update

ITEMS = [str(i) for i in range(16)]
START = {"items": ITEMS, "criteria": "larger", "seed": 4, "strategy": "elimination"}


def sorter(saver: InMemorySaver) -> QualitativeSorter:
    return QualitativeSorter(MockLLMProvider(seed=4), criteria="larger", seed=4,
                             checkpointer=saver)


async def test_a_step_whose_routing_was_lost_resumes_to_the_uninterrupted_ranking() -> None:
    reference = await sorter(InMemorySaver()).sort(ITEMS, run_id="whole")

    saver = InMemorySaver()
    graph = build_graph(saver)
    config: RunnableConfig = {"configurable": {"thread_id": "cut"}}
    context = TournamentContext(provider=MockLLMProvider(seed=4), progress=False)
    async for _ in graph.astream(START, config, context=context, interrupt_before=["update"]):
        pass
    paused = await graph.aget_state(config)
    assert paused.next == ("update",)
    written = await update(paused.values, Runtime(context=context))  # type: ignore[arg-type]
    await saver.aput_writes(paused.config, list(written.items()), paused.tasks[0].id)
    assert (await graph.aget_state(config)).next == ()  # looks finished, has no ranking

    resumed = await sorter(saver).resume("cut")
    assert resumed.rankings == reference.rankings
    assert len(resumed.match_history) == len(reference.match_history)
