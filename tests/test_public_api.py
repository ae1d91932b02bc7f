"""One public API: every name the README and docs/ show is importable from ``measurefirst`` itself,
``import measurefirst`` stays light, and options mean the same thing in every function."""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

import measurefirst
from measurefirst.measure.dtypes import DTYPE_ALIASES, dtype_name, torch_dtype

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: Subpackages documented as namespaces of their own (``measurefirst.distributed.benchmark`` is not
#: ``measurefirst.benchmark``).
NAMESPACES = {"distributed"}


def _doc_names() -> set[str]:
    names: set[str] = set()
    for path in DOCS:
        # mkdocstrings' directives (``::: measurefirst.measure.engine.benchmark``) name where the API reference reads
        text = re.sub(r"^::: .*$", "", path.read_text(encoding="utf-8"), flags=re.M)
        for mod, imported in re.findall(r"^\s*from (measurefirst[\w.]*) import ([\w, ]+)", text, re.M):
            assert mod == "measurefirst" or mod.split(".")[1] in NAMESPACES, f"{path.name}: from {mod} import"
            if mod == "measurefirst":
                names.update(n.strip() for n in imported.split(","))
        for dotted in re.findall(r"\bmeasurefirst((?:\.\w+)+)", text):
            parts = dotted.lstrip(".").split(".")
            if parts[0] in NAMESPACES or parts[0] in ("py", "json", "toml"):
                continue
            assert len(parts) == 1 or parts[1] in ("py",), f"{path.name}: measurefirst{dotted} (a submodule path)"
            names.add(parts[0])
    return names


def test_every_name_the_docs_show_is_importable_from_the_package() -> None:
    names = _doc_names()
    assert {"benchmark", "sweep", "benchmark_step", "CountError", "SimGPU", "peaks"} <= names  # the scan works
    missing = [n for n in sorted(names) if not hasattr(measurefirst, n)]
    assert not missing, f"shown in the docs but not importable from measurefirst: {missing}"
    exported = set(measurefirst.__all__) - {"__version__"}
    assert exported == set(measurefirst._EXPORTS), "__all__ and the lazy exports list different names"


def test_import_measurefirst_imports_nothing_heavy() -> None:
    code = ("import sys, measurefirst\n"
            "heavy = ('torch', 'numpy', 'matplotlib', 'scipy', 'rich')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _named() -> None:
    pass


def test_one_label_rule_everywhere() -> None:
    from measurefirst.measure.engine import default_label

    class Model:
        def forward(self) -> None:
            pass

    assert default_label(_named) == "_named"
    assert default_label(Model().forward) == ("test_one_label_rule_everywhere.<locals>.Model.forward")
    assert default_label(functools.partial(_named)) == "_named"
    assert default_label(lambda: None) == "lambda"


@pytest.mark.parametrize(("spellings", "short"), [
    (("bf16", "bfloat16", "BF16", "torch.bfloat16"), "bf16"),
    (("fp16", "float16", "half"), "fp16"),
    (("fp32", "float32", "float"), "fp32"),
    (("fp64", "float64", "double"), "fp64"),
])
def test_one_dtype_vocabulary(spellings: tuple[str, ...], short: str) -> None:
    import torch

    want = getattr(torch, {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}[short])
    for s in spellings:
        assert dtype_name(s) == short
        assert torch_dtype(s) is want
    assert dtype_name(want) == short and torch_dtype(want) is want
    assert set(DTYPE_ALIASES.values()) == {"fp32", "bf16", "fp16", "fp64", "tf32"}


def test_dtypes_outside_what_a_caller_supports_are_refused_by_name() -> None:
    assert dtype_name("tf32", ("fp32", "tf32")) == "tf32"
    with pytest.raises(ValueError, match=r"unknown dtype 'tf32'; use one of: fp32 \(float32/float\), bf16 \(bfloat16\)"):
        torch_dtype("tf32", ("fp32", "bf16"))
    with pytest.raises(ValueError, match="unknown dtype 'int8'"):
        dtype_name("int8")


def test_the_version_is_the_one_pyproject_gives() -> None:
    import re
    from pathlib import Path

    import measurefirst
    from measurefirst._version import __version__

    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    assert measurefirst.__version__ == __version__ == re.search(r'^version = "([^"]+)"', pyproject, re.M)[1]
