"""The arguments of the commands that say where the time goes: ``sweep`` (time against size),
``profile`` (op and kernel tables), ``step`` (a training step phase by phase) and ``kernel`` (kernel
names decoded)."""

from __future__ import annotations

import re
from typing import Any

from ..results import defaults as D
from ..tools.targets import STEP_CONTRACT
from .parser_common import _STORE_HELP, _common, _labels, _stopping, _sub
from .parser_types import _at_least, _comma_list, _path, _seconds, _step_flops

#: ``measurefirst step --variants``: eager, compile (inductor) or compile:BACKEND.
VARIANT_RE = re.compile(r"^(eager|compile(:[\w.\-]+)?)$")


def _add_sweep(sub: Any) -> None:
    """``measurefirst sweep``."""
    w = _sub(
        sub, "sweep", "time vs size: throughput, a fitted cost model, the roofline, plots",
        "TARGET is module:make_fn, a function of the size n that builds inputs and returns the callable to "
        "time; or use a built-in sweep with --op. Sizes and the --flops/--bytes expressions are checked, and "
        "evaluated at every size, before anything is measured.",
    )
    w.add_argument("target", nargs="?", metavar="TARGET", help="module:make_fn or file.py:make_fn")
    w.add_argument("--op", choices=D.SWEEP_OPS, default=None, help="a built-in sweep")
    w.add_argument("--sizes", default=None,
                   help="whole numbers: 64,128,...,4096 (doubling), 1000,2000,...,8000 (a constant step) or a "
                        "list; items may be expressions such as 2**10; at most 1000 sizes")
    w.add_argument("--flops", default=None, help="FLOPs per call as an expression of n, e.g. '2*n**3'")
    w.add_argument("--bytes", default=None, help="bytes moved per call as an expression of n, e.g. '12*n**2'")
    w.add_argument("--dtype", default=D.DTYPE, help=f"dtype for built-in sweeps and peaks (default {D.DTYPE})")
    _common(w, output=True, save="PREFIX", lang=True)
    _stopping(w, (D.SWEEP_PRECISION, "target half-width of the 95%% CI per size"),
              (D.SWEEP_BUDGET_S, "seconds per size at most"))
    w.add_argument("--reference", type=_at_least(1), default=None,
                   help="size the others are relative to (default 256, or the smallest)")
    w.add_argument("--no-peaks", action="store_true", help="skip the machine peaks and the roofline")
    w.add_argument("--plot", type=_path, default=None,
                   help="write plots: FILE.png|svg (+ FILE-throughput, FILE-roofline), atomically")



def _add_profile(sub: Any) -> None:
    """``measurefirst profile``."""
    f = _sub(sub, "profile", "where the time goes: op and kernel tables, diffs, traces",
             "TARGET: a statement (after -s setup) or module:function taking no arguments. Runs --warmup plain "
             "calls, then profiles --steps steps; every table is per step.")
    f.add_argument("target", metavar="TARGET")
    f.add_argument("--vs", action="append", default=[], metavar="TARGET",
                   help="profile another and show them side by side (repeatable)")
    _common(f, setup=True, output=True, save="NAME", lang=True)
    f.add_argument("--steps", type=_at_least(1), default=D.PROFILE_STEPS,
                   help=f"profiled (active) steps (default {D.PROFILE_STEPS})")
    f.add_argument("--warmup", type=_at_least(0), default=D.PROFILE_WARMUP,
                   help=f"plain calls before profiling (default {D.PROFILE_WARMUP})")
    f.add_argument("--view", choices=D.VIEWS, default=D.VIEWS[0],
                   help="work: ops that do the work, as the lecture counts them (default); all: every op, "
                        "bookkeeping too; top: top-level ops only")
    f.add_argument("--sort", choices=D.SORTS, default=D.SORTS[0], help="sort the op table by this column (default self time)")
    f.add_argument("--row-limit", type=_at_least(1), default=D.ROW_LIMIT,
                   help=f"rows per table at most (default {D.ROW_LIMIT})")
    f.add_argument("--group-by-shape", action="store_true", help="one row per op and input shape")
    f.add_argument("--trace", type=_path, default=None, help="write a Chrome/Perfetto trace (JSON), atomically")
    f.add_argument("--memory-snapshot", type=_path, default=None, help="CUDA: write a memory snapshot (pickle)")
    f.add_argument("--flops-by-module", action="store_true", help="count FLOPs per module (FlopCounterMode)")
    _labels(f)

def _add_step(sub: Any) -> None:
    """``measurefirst step``."""
    st = _sub(sub, "step", "time a training step phase by phase: memory, tokens/s, MFU, variants",
              "TARGET is module:build or file.py:build; " + STEP_CONTRACT)
    st.add_argument("target", metavar="TARGET")
    st.add_argument("--variants", type=_comma_list(pattern=VARIANT_RE, words="eager, compile, compile:BACKEND"),
                    default=["eager"], help="comma list of eager, compile, compile:BACKEND")
    st.add_argument("--dtypes", "--dtype", type=_comma_list(D.STEP_DTYPES, dtypes=True, words=", ".join(D.STEP_DTYPES)
                                                             + " (or float32, bfloat16, float16)"),
                    default=[D.STEP_DTYPES[0]], help=f"comma list of {', '.join(D.STEP_DTYPES)} (autocast; "
                                                     "float32, bfloat16, float16 alike)")
    _common(st, output=True, save="NAME", store=_STORE_HELP + "; holds the peaks cache", lang=True)
    st.add_argument("--steps", type=_at_least(1), default=D.COMPARE_STEPS, help=f"timed steps (default {D.COMPARE_STEPS})")
    st.add_argument("--warmup", type=_at_least(0), default=D.STEP_WARMUP,
                    help=f"warm-up steps, not timed (default {D.STEP_WARMUP})")
    st.add_argument("--micro-batch", type=_at_least(1), default=None, help="samples per micro-batch")
    st.add_argument("--seq-len", type=_at_least(1), default=None, help="tokens per sample (gives tokens/s)")
    st.add_argument("--grad-accum", type=_at_least(1), default=1, help="micro-batches per step (default 1)")
    st.add_argument("--world-size", type=_at_least(1), default=1, help="devices in the job (default 1)")
    st.add_argument("--flops", type=_step_flops, default="count",
                    help="count (FlopCounterMode), 6N, or a positive number per step")
    st.add_argument("--no-peaks", action="store_true", help="skip the measured peak (MFU vs the table only)")
    from .distributed import add_step_arguments

    add_step_arguments(st, _seconds)


def _add_kernel(sub: Any) -> None:
    """``measurefirst kernel``."""
    kn = _sub(sub, "kernel", "decode GPU kernel names: library, op, arch, dtype, tile, layout",
              "Decode kernel names as they appear in profiles (cuBLAS, CUTLASS, Triton, flash-attention, NCCL, ...).")
    kn.add_argument("names", nargs="+", metavar="NAME")
    _common(kn, device=False, store="", lang=True)
