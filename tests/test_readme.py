"""The README is the landing page: it fits a few screens, and its command table lists every command
and every part of the lecture. (Its code blocks run with every page's: tests/test_docs.py.)"""

import argparse
import re
from pathlib import Path

from measurefirst.results import defaults as D
from measurefirst.cli.commands import build_parser

README = Path(__file__).parent.parent / "README.md"
MAX_LINES = 250


def test_readme_fits_a_few_screens():
    lines = README.read_text().count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines; move the detail into a page under docs/"


def test_the_command_table_lists_every_command_and_every_part_of_the_lecture():
    text = README.read_text()
    table = text[text.index("## Every command"):]
    table = table[:table.index("\n## ")]
    listed = set(re.findall(r"`measurefirst (\w+)", table))
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) <= listed, f"missing from README's command table: {set(sub.choices) - listed}"
    demo_row = next(line for line in table.splitlines() if "measurefirst demo" in line)
    assert all(part in demo_row for part in D.DEMOS), D.DEMOS
    assert "pytest --mf" in table
