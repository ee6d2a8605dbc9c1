"""The README's Python example is python/examples/quickstart.py, and it
runs (twice: it is written to run again on its own file)."""

import pathlib
import re
import subprocess
import sys

PYTHON = pathlib.Path(__file__).resolve().parent.parent
README = PYTHON.parent / "README.md"
EXAMPLE = PYTHON / "examples" / "quickstart.py"


def readme_example():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("\n## Python\n"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the Python section has one python block"
    return blocks[0]


def test_readme_shows_the_example_file():
    assert readme_example() == EXAMPLE.read_text(encoding="utf-8")


def test_example_runs(tmp_path):
    for _ in range(2):
        run = subprocess.run([sys.executable, str(EXAMPLE)], cwd=tmp_path, capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 0, run.stderr
        assert run.stdout == "1 1 25.0 Ann\n"
    assert (tmp_path / "people.realm").exists()
