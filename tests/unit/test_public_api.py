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
