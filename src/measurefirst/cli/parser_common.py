"""What the commands' parsers share: each command's examples, its help in the language asked for (the words
table's ``help.*`` keys, :mod:`measurefirst.render.words_cli_help`), and the options several commands take
with the same meaning everywhere (setup, device, JSON, output, save, store, language, stopping, timer,
labels)."""

from __future__ import annotations

import argparse
from typing import Any

from ..results import defaults as D
from ..render.words import LANGS, word
from .parser_types import GivenDefault, _fraction, _label, _path, _save_name, _seconds, _seconds_or_zero, _store


_EXAMPLES = {
    "bench": """examples:
  measurefirst bench -s "a = torch.randn(1024, 1024, device=device)" "a @ a"
  measurefirst bench mypkg.kernels:fused_step --device cuda:1 --precision 0.5% --budget 10
  measurefirst bench "x.sum()" -s "x = torch.randn(2**24, device=device)" --cold-cache --json -o sum.json
  measurefirst bench "a @ a" -s "a = torch.randn(512, 512)" --save matmul512""",
    "bisect": """examples:
  measurefirst bisect v1.2 main "torch.softmax(x, -1)" -s "x = torch.randn(64, 1024)"
  measurefirst bisect good-sha HEAD mypkg.ops:attention_step --budget 4 --save attention-bisect
  measurefirst bisect v1.2 main -- pytest benchmarks/test_ops.py -k softmax""",
    "compare": """examples:
  measurefirst compare -s "x = torch.randn(2**20)" "x * 2" "x + x" --label mul --label add
  measurefirst compare base.json new.json --fail-if-slower 5%     # regression check of saved files
  measurefirst compare @matmul512 --fail-if-slower 2%             # latest run against the one before
  measurefirst compare "#12" "#15"                                # two saved runs by id
  measurefirst compare --against origin/main mypkg.ops:attention --fail-if-slower 5%   # code against code""",
    "runs": """examples:
  measurefirst runs                      # the latest 20 saved runs (-n N, --all)
  measurefirst runs list matmul512       # the runs of one name (also --kind, --machine, --since 7d)
  measurefirst runs show 12 13
  measurefirst runs export 12 13 --format csv
  measurefirst runs delete 12
  measurefirst runs prune --keep-last 50 --older-than 90d    # then gives the space back
  measurefirst runs copy .measurefirst/results.db postgresql://ci@db.example/bench
  measurefirst runs import .benchmarks         # pytest-benchmark's saved runs, then: compare @test_name""",
    "sweep": """examples:
  measurefirst sweep --op matmul --sizes 64,128,...,2048 --plot mm.png
  measurefirst sweep mypkg.ops:make_add --sizes 2**10,2**12,...,2**24 --flops n --bytes 12*n
  measurefirst sweep --op add --sizes 1000,2000,...,8000 --no-peaks --json -o add.json""",
    "report": """examples:
  measurefirst report @matmul -o report.html                      # the latest saved run of matmul
  measurefirst report matmul -o history.html                      # every saved run of matmul, steps marked
  measurefirst report ab.json sweep.json "#12" -o report.html --lang zh --theme dark""",
    "peaks": """examples:
  measurefirst peaks
  measurefirst peaks --device cuda --dtype bf16 --refresh --json""",
    "profile": """examples:
  measurefirst profile -s "x = torch.randn(2**20, device=device)" "torch.nn.functional.gelu(x)"
  measurefirst profile mypkg.train:step --trace step.json --sort total --row-limit 40 --view all
  measurefirst profile "0.5 * x * (1 + torch.tanh(x))" --vs "torch.tanh(x)" -s "x = torch.randn(2**16)\"""",
    "doctor": """examples:
  measurefirst doctor mypkg.train:step
  measurefirst doctor -s "x = torch.randn(1000)" "x.sum().item()" --json --strict""",
    "demo": """examples:
  measurefirst demo                      # all six parts, in the language of your locale
  measurefirst demo pitfalls --lang zh
  measurefirst demo scaling --quick --json""",
    "step": """examples:
  measurefirst step examples/tiny_lm.py:build
  measurefirst step examples/tiny_lm.py:build --variants eager,compile --dtypes fp32,bf16 --json
  torchrun --nproc-per-node 2 -m measurefirst step examples/tiny_lm.py:build --ddp   # or --fsdp""",
    "kernel": """examples:
  measurefirst kernel ampere_sgemm_128x64_tn "triton_poi_fused_add_mul_tanh_0" --json""",
    "selfcheck": """examples:
  measurefirst selfcheck --quick                 # CPU, under 30 s on 2 cores
  measurefirst selfcheck --device cuda --save    # CUDA sleep kernels; keep the runs to compare later
  measurefirst selfcheck --json -o check.json --lang zh
  measurefirst selfcheck --noise                 # this machine's noise profile (about a minute), saved""",
    "history": """examples:
  measurefirst history matmul512
  measurefirst history matmul512 --changes
  measurefirst history matmul512 --json""",
    "publish": """examples:
  measurefirst publish -o site/
  measurefirst publish -o site/ --store postgresql://ci@db/perf \\
      --commit-url "https://github.com/org/repo/commit/{commit}\"""",
}


def _pct(x: float) -> str:
    """A fraction for a help text (argparse formats help with %): 0.005 -> '0.5%%'."""
    return f"{x * 100:g}%%"


def _h(lang: str, key: str, **fields: Any) -> str:
    """The help text ``help.KEY`` of the words table in ``lang``, filled with ``fields``."""
    return word("help." + key, lang, **fields)


def _lang(p: argparse.ArgumentParser) -> str:
    """The language of a parser's help (:class:`measurefirst.cli.parser.Parser`'s ``lang``)."""
    return str(getattr(p, "lang", LANGS[0]))


def _sub(sub: Any, name: str, lang: str, **fields: Any) -> argparse.ArgumentParser:
    """The command ``name``: its help line and description in ``lang`` (the description filled with
    ``fields``), its examples as they are."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=_h(lang, name), description=_h(lang, f"{name}.description", **fields), epilog=_EXAMPLES.get(name),
        formatter_class=argparse.RawDescriptionHelpFormatter, lang=lang)
    return parser


def _common(p: argparse.ArgumentParser, *, setup: bool = False, device: bool = True, json: bool = True,
            output: bool = False, save: str | None = None, store: str = "store", lang: bool = False) -> None:
    """The options several commands share, with the same meaning everywhere; ``store``: the key of the
    help of ``--store`` (``help.common.STORE``: ``store``, ``store_peaks``, ``store_cache``), or empty for
    none."""
    said = _lang(p)
    if setup:
        p.add_argument("-s", "--setup", action="append", default=[], help=_h(said, "common.setup"))
    if device:  # the commands that measure
        p.add_argument("-d", "--device", default="auto", help=_h(said, "common.device"))
        p.add_argument("-q", "--quiet", action="store_true", help=_h(said, "common.quiet"))
    if json:
        p.add_argument("--json", action="store_true", help=_h(said, "common.json"))
    if output:
        p.add_argument("-o", "--output", type=_path, default=None, help=_h(said, "common.output"))
    if save is not None:
        p.add_argument("--save", nargs="?", const="", default=None, metavar=save, type=_save_name,
                       help=_h(said, "common.save", name=save))
    if store:
        p.add_argument("--store", type=_store, default=None,
                       help=_h(said, f"common.{store}", store=_h(said, "common.store")))
    if lang:
        p.add_argument("--lang", choices=LANGS, default=None, help=_h(said, "common.lang"))


def _stopping(p: argparse.ArgumentParser, command: str, precision: float, budget: float,
              min_time: float | None = None) -> None:
    """--precision, --budget and --min-time, their defaults given; their help is ``help.COMMAND.precision``,
    ``.budget`` and ``.min_time``."""
    said = _lang(p)
    p.add_argument("-p", "--precision", type=_fraction, default=precision,
                   help=_h(said, f"{command}.precision", default=_pct(precision)))
    p.add_argument("-b", "--budget", type=_seconds, default=budget,
                   help=_h(said, f"{command}.budget", default=f"{budget:g}"))
    if min_time is not None:
        p.add_argument("--min-time", type=_seconds_or_zero, default=GivenDefault(min_time),
                       help=_h(said, f"{command}.min_time", default=f"{min_time:g}"))


def _timer(p: argparse.ArgumentParser) -> None:
    p.add_argument("--timer", choices=D.TIMERS, default=D.TIMERS[0], help=_h(_lang(p), "common.timer"))


def _labels(p: argparse.ArgumentParser) -> None:
    p.add_argument("--label", action="append", default=[], type=_label, help=_h(_lang(p), "common.label"))
