"""The README's Python blocks run, in order, in one namespace: the docs cannot rot."""

import re
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def test_readme_python_blocks_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 6
    namespace: dict = {"__name__": "__readme__"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"README.md block {i + 1}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "aten::mul" in out and "faster than manual" in out
