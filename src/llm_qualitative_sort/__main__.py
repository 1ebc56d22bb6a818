"""`python -m llm_qualitative_sort`: the command line (see `llm_qualitative_sort.cli`)."""

from llm_qualitative_sort.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
