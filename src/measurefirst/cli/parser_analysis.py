"""The arguments of the commands that say where the time goes: ``sweep`` (time against size),
``profile`` (op and kernel tables), ``step`` (a training step phase by phase) and ``kernel`` (kernel
names decoded)."""

from __future__ import annotations

import re
from typing import Any

from ..results import defaults as D
from .parser_common import _common, _h, _labels, _stopping, _sub
from .parser_types import _at_least, _comma_list, _path, _seconds, _step_flops

#: ``measurefirst step --variants``: eager, compile (inductor) or compile:BACKEND.
VARIANT_RE = re.compile(r"^(eager|compile(:[\w.\-]+)?)$")


def _add_sweep(sub: Any, lang: str) -> None:
    """``measurefirst sweep``."""
    w = _sub(sub, "sweep", lang)
    w.add_argument("target", nargs="?", metavar="TARGET", help=_h(lang, "sweep.target"))
    w.add_argument("--op", choices=D.SWEEP_OPS, default=None, help=_h(lang, "sweep.op"))
    w.add_argument("--sizes", default=None, help=_h(lang, "sweep.sizes"))
    w.add_argument("--flops", default=None, help=_h(lang, "sweep.flops"))
    w.add_argument("--bytes", default=None, help=_h(lang, "sweep.bytes"))
    w.add_argument("--dtype", default=D.DTYPE, help=_h(lang, "sweep.dtype", default=D.DTYPE))
    _common(w, output=True, save="PREFIX", lang=True)
    _stopping(w, "sweep", D.SWEEP_PRECISION, D.SWEEP_BUDGET_S)
    w.add_argument("--reference", type=_at_least(1), default=None, help=_h(lang, "sweep.reference"))
    w.add_argument("--no-peaks", action="store_true", help=_h(lang, "sweep.no_peaks"))
    w.add_argument("--plot", type=_path, default=None, help=_h(lang, "sweep.plot"))


def _add_profile(sub: Any, lang: str) -> None:
    """``measurefirst profile``."""
    f = _sub(sub, "profile", lang)
    f.add_argument("target", metavar="TARGET")
    f.add_argument("--vs", action="append", default=[], metavar="TARGET", help=_h(lang, "profile.vs"))
    _common(f, setup=True, output=True, save="NAME", lang=True)
    f.add_argument("--steps", type=_at_least(1, D.PROFILE_MAX_STEPS, ": the profiler keeps every event of every step in memory"),
                   default=D.PROFILE_STEPS,
                   help=_h(lang, "profile.steps", default=D.PROFILE_STEPS))
    f.add_argument("--warmup", type=_at_least(0), default=D.PROFILE_WARMUP,
                   help=_h(lang, "profile.warmup", default=D.PROFILE_WARMUP))
    f.add_argument("--view", choices=D.VIEWS, default=D.VIEWS[0], help=_h(lang, "profile.view"))
    f.add_argument("--sort", choices=D.SORTS, default=D.SORTS[0], help=_h(lang, "profile.sort"))
    f.add_argument("--row-limit", type=_at_least(1), default=D.ROW_LIMIT,
                   help=_h(lang, "profile.row_limit", default=D.ROW_LIMIT))
    f.add_argument("--group-by-shape", action="store_true", help=_h(lang, "profile.group_by_shape"))
    f.add_argument("--trace", type=_path, default=None, help=_h(lang, "profile.trace"))
    f.add_argument("--memory-snapshot", type=_path, default=None, help=_h(lang, "profile.memory_snapshot"))
    f.add_argument("--flops-by-module", action="store_true", help=_h(lang, "profile.flops_by_module"))
    _labels(f)


def _add_step(sub: Any, lang: str) -> None:
    """``measurefirst step``."""
    st = _sub(sub, "step", lang, contract=_h(lang, "step.contract"))
    st.add_argument("target", metavar="TARGET")
    st.add_argument("--variants", type=_comma_list(pattern=VARIANT_RE, words="eager, compile, compile:BACKEND"),
                    default=["eager"], help=_h(lang, "step.variants"))
    st.add_argument("--dtypes", "--dtype", type=_comma_list(D.STEP_DTYPES, dtypes=True, words=", ".join(D.STEP_DTYPES)
                                                             + " (or float32, bfloat16, float16)"),
                    default=[D.STEP_DTYPES[0]], help=_h(lang, "step.dtypes", dtypes=", ".join(D.STEP_DTYPES)))
    _common(st, output=True, save="NAME", store="store_peaks", lang=True)
    st.add_argument("--steps", type=_at_least(1, D.STEP_MAX_STEPS, ": a step run has no time budget"),
                    default=D.COMPARE_STEPS, help=_h(lang, "step.steps", default=D.COMPARE_STEPS))
    st.add_argument("--warmup", type=_at_least(0, D.STEP_MAX_STEPS, ": a step run has no time budget"),
                    default=D.STEP_WARMUP,
                    help=_h(lang, "step.warmup", default=D.STEP_WARMUP))
    st.add_argument("--micro-batch", type=_at_least(1), default=None, help=_h(lang, "step.micro_batch"))
    st.add_argument("--seq-len", type=_at_least(1), default=None, help=_h(lang, "step.seq_len"))
    st.add_argument("--grad-accum", type=_at_least(1), default=1, help=_h(lang, "step.grad_accum"))
    st.add_argument("--world-size", type=_at_least(1), default=1, help=_h(lang, "step.world_size"))
    st.add_argument("--flops", type=_step_flops, default="count", help=_h(lang, "step.flops"))
    st.add_argument("--no-peaks", action="store_true", help=_h(lang, "step.no_peaks"))
    from .distributed import add_step_arguments

    add_step_arguments(st, _seconds)


def _add_kernel(sub: Any, lang: str) -> None:
    """``measurefirst kernel``."""
    kn = _sub(sub, "kernel", lang)
    kn.add_argument("names", nargs="+", metavar="NAME")
    _common(kn, device=False, store="", lang=True)
