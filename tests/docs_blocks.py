"""The code blocks of the README and of every page under docs/, found and run (tests/test_docs.py).

Each fenced block is one of:

- ``python`` (or ``py``): run, the blocks of a page in order in one namespace, in a temporary folder;
- ``bash`` (or ``console``, ``sh``): each command run as written, in that page's temporary folder
  (so a ``--save`` in one block is there for ``report @NAME`` in the next): ``measurefirst …`` in this
  process (``main(argv)``), on the seeded simulated clock where the command has one (``bench``, live
  ``compare``, ``doctor``, ``selfcheck``), else for real; ``pytest …`` in a fresh pytest session in this
  process, on the plugin's simulated clock. Comments (``# …``) and ``\\`` line continuations are read as the shell
  reads them; ``A && B`` is two commands;
- ``text``, ``yaml``, ``toml``, ``ini``: output or data shown, not run (a workflow shown in YAML is run by
  its own test: tests/test_ci_recipe.py);
- any block right after ``<!-- norun: REASON -->``: not run, counted, and the reason is required
  (a GPU, many nodes under torchrun, minutes of measuring, a placeholder such as ``mypkg``).

Every fenced block must say which: an unlabelled fence is an error.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN_PY = ("python", "py")
RUN_SHELL = ("bash", "console", "sh")
SHOWN = ("text", "yaml", "toml", "ini")
FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
NORUN = re.compile(r"<!-- norun: (?P<reason>[^>]+?) -->\s*$")
#: what measurefirst's commands are given to run on the simulated clock (the hidden --simulate switch)
SIMULATED = {"bench": "call=10us,timer=50ns", "doctor": "call=10us,timer=50ns", "selfcheck": "call=10us,timer=50ns"}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    body: str
    norun: str | None  # the reason it does not run

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


#: the site's landing pages, copies of README.md and README.zh.md that the site's build writes (git ignores them)
GENERATED = (ROOT / "docs" / "index.md", ROOT / "docs" / "index.zh.md")


def pages() -> list[Path]:
    """The pages whose blocks run: the README and every English page under docs/ (a translation,
    ``page.zh.md``, holds the same code as its English page, which :func:`translations` checks)."""
    return [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").rglob("*.md") if not p.name.endswith(".zh.md")
                                         and p not in GENERATED)


def translations() -> list[tuple[Path, Path]]:
    """Each Chinese page (``README.zh.md``, the site's landing page, and ``page.zh.md`` under docs/) with its
    English page (``page.md``)."""
    found = sorted([ROOT / "README.zh.md"] if (ROOT / "README.zh.md").exists() else []) + sorted(
        p for p in (ROOT / "docs").rglob("*.zh.md") if p not in GENERATED)
    return [(p.with_name(p.name.removesuffix(".zh.md") + ".md"), p) for p in found]


#: ``--lang xx`` in a command, and a comment after ``#``: what a translation may say in its own language
_LANG_FLAG = re.compile(r"\s--lang[ =](en|zh)\b")
_COMMENT = re.compile(r"(\s{2,}|^\s*)#.*$", re.M)  # a comment line, or one after two spaces or more


def code_of(block: Block) -> tuple[str, str, str | None]:
    """A block as a translation must keep it: its language and whether it runs (the norun reason, which
    stays in English); for a block that runs, its code without comments and ``--lang`` flags (a block
    that is only shown, such as a syntax summary, may be translated)."""
    if block.lang not in RUN_PY + RUN_SHELL:
        return block.lang, "", block.norun
    body = _COMMENT.sub("", _LANG_FLAG.sub("", block.body))
    return block.lang, "\n".join(line.rstrip() for line in body.strip().splitlines() if line.strip()), block.norun


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        norun = NORUN.search(before)
        indent = len(m.group("indent"))
        body = "\n".join(line[indent:] for line in m.group("body").split("\n"))
        found.append(Block(str(path.relative_to(ROOT)), text.count("\n", 0, m.start()) + 1,
                           m.group("info").strip().split(" ")[0], body, norun.group("reason") if norun else None))
    return found


def commands(body: str) -> list[str]:
    """The shell commands of a block: continuations joined, comments and blank lines dropped, ``&&`` split."""
    joined = re.sub(r"\\\n\s*", " ", body)
    out = []
    for line in joined.split("\n"):
        words = shlex.split(line, comments=True)
        if not words:
            continue
        cmd: list[str] = []
        for w in words + ["&&"]:
            if w == "&&":
                out.append(shlex.join(cmd))
                cmd = []
            else:
                cmd.append(w)
    return [c for c in out if c]


def run_measurefirst(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    """``measurefirst ARGV`` in this process, on the simulated clock where the command has one."""
    from measurefirst.cli.commands import build_parser, main

    args = build_parser().parse_args(argv)
    extra: list[str] = []
    if args.command in SIMULATED and getattr(args, "count", None) is None and "--simulate" not in argv:
        extra = ["--simulate", SIMULATED[args.command]] + (["--min-time", "0"] if args.command == "bench" else [])
    if args.command == "compare" and not any(t.endswith(".json") or t[:1] in "#@" for t in args.targets):
        extra = ["--simulate", ";".join(f"call={10 + 5 * i}us" for i in range(len(args.targets))), "--min-time", "0"]
    out = io.StringIO()
    old = {k: os.environ.get(k) for k in [*env, "MEASUREFIRST_STORE"]}
    os.environ.update(env)
    os.environ.pop("MEASUREFIRST_STORE", None)  # the store of the page's folder, as a user's would be
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(argv + extra)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue()


def run_command(command: str, cwd: Path) -> tuple[int, str]:
    words = shlex.split(command)
    env: dict[str, str] = {}
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    if words[0] == "measurefirst":
        previous = os.getcwd()
        os.chdir(cwd)
        try:
            return run_measurefirst(words[1:], env)
        finally:
            os.chdir(previous)
    if words[0] == "pytest":
        return run_pytest(words[1:], cwd, env)
    raise AssertionError(f"{command!r}: only measurefirst and pytest commands run; mark the block "
                         f"<!-- norun: REASON --> if it cannot")


#: the plugin's simulated clock for ``pytest`` commands: the examples' fused GeLU 3x faster than the manual one
PYTEST_SIMULATE = "call=10us,seed=1;manual=15us;fused=5us"


def run_pytest(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """``pytest ARGS`` in this process (a fresh pytest session, as pytester's in-process runs), on the
    plugin's simulated clock, the store in ``cwd``."""
    import pytest

    env = {**env, "MEASUREFIRST_PYTEST_SIMULATE": PYTEST_SIMULATE}
    old = {k: os.environ.get(k) for k in [*env, "MEASUREFIRST_STORE"]}
    os.environ.update(env)
    os.environ.pop("MEASUREFIRST_STORE", None)
    previous, modules, path = os.getcwd(), set(sys.modules), list(sys.path)
    os.chdir(cwd)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = int(pytest.main(["-p", "no:cacheprovider", "-p", "no:randomly", *args]))
    finally:
        os.chdir(previous)
        sys.path[:] = path
        for name in set(sys.modules) - modules:  # the test files it imported (as pytester does)
            if not name.startswith(("measurefirst", "torch", "numpy", "rich", "_pytest", "pytest")):
                del sys.modules[name]
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue()


def prepare(folder: Path) -> None:
    """A page's working folder: the repository's examples beside it, as in a checkout."""
    (folder / "examples").symlink_to(ROOT / "examples")


def build_site(out: Path) -> Path:
    """``mkdocs build --strict`` into ``out`` (a warning fails it, with mkdocs' output in the message)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return out
