"""Every word shown to people is in a table of one format (key -> its text in each language of ``LANGS``),
``LANGS`` is defined once, and each text's placeholders are the same in every language."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from measurefirst.lecture.narration import TEXT
from measurefirst.render.findings import FINDING_WORDS, PARTS
from measurefirst.render.words import LANGS, WORDS, Words, text, word
from measurefirst.results.findings import CATALOGUE

SRC = Path(__file__).resolve().parent.parent / "src" / "measurefirst"
TABLES: dict[str, Words] = {"render.words.WORDS": WORDS, "render.findings.FINDING_WORDS": FINDING_WORDS,
                            "lecture.narration.TEXT": TEXT}


def _placeholders(template: str) -> list[tuple[str, str, str]]:
    """Each ``{name!conversion:spec}`` of a template, sorted: what the language's text is filled with."""
    return sorted({(name, conv or "", spec or "") for _, name, spec, conv in string.Formatter().parse(template)
                   if name is not None})


@pytest.mark.parametrize("name", list(TABLES))
def test_every_key_has_every_language_with_the_same_placeholders(name: str) -> None:
    for key, texts in TABLES[name].items():
        assert isinstance(texts, tuple) and len(texts) == len(LANGS), f"{name}[{key!r}]: one text per language"
        assert all(isinstance(t, str) for t in texts), f"{name}[{key!r}]: text in every language"
        # words in every language, or none (a finding's part left empty on purpose, as a fix that has none)
        assert all(t.strip() for t in texts) or not any(texts), f"{name}[{key!r}]: every language needs words"
        first = _placeholders(texts[0])
        for lang, t in zip(LANGS[1:], texts[1:]):
            assert _placeholders(t) == first, f"{name}[{key!r}]: {lang} fills {_placeholders(t)}, en fills {first}"
            left = t != texts[0] and t.isascii() and any(c.isalpha() for c in t)
            assert not left, f"{name}[{key!r}]: {lang} left in English: {t!r}"


def test_langs_is_defined_once_and_no_table_is_kept_per_language() -> None:
    """No module but render/words.py assigns ``LANGS``, and no dict literal holds a text per language
    (``{"en": ..., "zh": ...}``): words go in a table of the one format."""
    defined, per_language = [], []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = str(path.relative_to(SRC))
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == "LANGS" for t in targets):
                defined.append(where)
            if isinstance(node, ast.Dict) and set(LANGS) <= {k.value for k in node.keys if isinstance(k, ast.Constant)}:
                per_language.append(f"{where}:{node.lineno}")
    assert defined == ["render/words.py"]
    assert per_language == []


def test_every_finding_word_belongs_to_a_code_and_a_part() -> None:
    for key in FINDING_WORDS:
        code, part = key.split(".", 1)
        assert code in CATALOGUE and part.split(".")[0] in PARTS, key


def test_a_language_the_table_lacks_reads_the_first_and_a_key_it_lacks_reads_as_it_is() -> None:
    assert text(WORDS, "median", "fr") == text(WORDS, "median", LANGS[0]) == WORDS["median"][0]
    assert word("median", "zh") == WORDS["median"][LANGS.index("zh")]
    assert word("{0.__class__} from a file", "en", x=1) == "{0.__class__} from a file"  # data, never a template
