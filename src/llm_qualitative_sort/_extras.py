"""What to run when an optional extra is missing.

The name `llm-qualitative-sort` on PyPI belongs to another project (which also imports as
`llm_qualitative_sort`): advice to install `llm-qualitative-sort[openai]` by name would
fetch that project instead of adding the extra to this one. Every hint installs from
this project's own folder.
"""


def install_hint(extra: str) -> str:
    """The command that adds `extra` to an installation of this project.

    Args:
        extra: The name of an optional dependency group in pyproject.toml.

    Returns:
        The pip command, run from this project's folder, and why not by name.

    Example:
        >>> print(install_hint("postgres").split(" in ")[0])
        pip install -e ".[postgres]"
    """
    return (
        f'pip install -e ".[{extra}]" in this project\'s folder '
        '(the "llm-qualitative-sort" on PyPI is another project)'
    )
