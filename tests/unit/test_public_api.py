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
