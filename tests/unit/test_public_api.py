import llm_qualitative_sort


def test_all_is_sorted_and_importable() -> None:
    names = llm_qualitative_sort.__all__
    assert list(names) == sorted(names)
    for name in names:
        assert getattr(llm_qualitative_sort, name) is not None


def test_all_lists_every_public_name() -> None:
    public = {
        name
        for name, value in vars(llm_qualitative_sort).items()
        if not name.startswith("_") and getattr(value, "__module__", "").startswith(
            "llm_qualitative_sort"
        )
    }
    assert public <= set(llm_qualitative_sort.__all__)


def test_the_prompts_package_exports_its_concept_sorted() -> None:
    """The prompts' room lists its public names; the top level hands out the same objects."""
    from llm_qualitative_sort import prompts

    assert list(prompts.__all__) == sorted(prompts.__all__)
    public = {name for name in vars(prompts) if not name.startswith("_")
              and getattr(getattr(prompts, name), "__module__", "").startswith(prompts.__name__)}
    assert public <= set(prompts.__all__)
    assert llm_qualitative_sort.PromptTemplate is prompts.PromptTemplate
    assert llm_qualitative_sort.PromptTemplateError is prompts.PromptTemplateError


def test_the_testing_package_exports_the_judges_for_tests_sorted() -> None:
    """The judges for tests live in `testing`; the top level and providers hand out the same."""
    from llm_qualitative_sort import providers, testing

    assert list(testing.__all__) == sorted(testing.__all__)
    public = {name for name in vars(testing) if not name.startswith("_")
              and getattr(getattr(testing, name), "__module__", "").startswith(testing.__name__)}
    assert public <= set(testing.__all__)
    assert llm_qualitative_sort.MockLLMProvider is testing.MockLLMProvider
    for name in ("MockLLMProvider", "ReplayProvider", "ReplayTopic", "load_replay_topic"):
        assert getattr(providers, name) is getattr(testing, name)
        assert name not in providers.__all__


def test_the_provider_seam_loads_no_judge_for_tests() -> None:
    import subprocess
    import sys

    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, llm_qualitative_sort.providers; "
         "print(sorted(m for m in sys.modules if m.startswith('llm_qualitative_sort.') and "
         "any(word in m for word in ('testing', 'mock', 'replay'))))"],
        capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
