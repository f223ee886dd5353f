"""The README's Python example runs as written."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"


def python_blocks(markdown: str) -> list[str]:
    """The ```python blocks of the README's "## Python" section."""
    section = markdown.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


def test_the_readme_python_example_runs():
    blocks = python_blocks(README.read_text())
    assert len(blocks) == 1
    exec(compile(blocks[0], str(README), "exec"), {})
