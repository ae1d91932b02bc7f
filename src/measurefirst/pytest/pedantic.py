"""pytest-benchmark's ``benchmark.pedantic`` mode: its calling convention (a ``setup`` that returns the
arguments, a ``teardown`` after each round) and its exact rounds, cut into repetitions whose medians'
spread is the measurement's run-to-run spread."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

from ..results import defaults
from ..results.kinds import Measurement, Stop

#: ``benchmark.pedantic(rounds=R)`` takes exactly R samples; they are taken in up to
#: :data:`~measurefirst.results.defaults.REPEATS` consecutive repetitions of this many rounds at least, whose medians'
#: spread is the measurement's run-to-run spread (source "repeats"), so a gate against a baseline uses a
#: measured spread rather than an assumed one. Fewer rounds: one repetition, the spread not measured.
PEDANTIC_REPEAT_MIN_ROUNDS = 5


#: ``benchmark.pedantic`` runs the rounds it was given in full, however busy the machine: its budget is this
#: long (or the test's, when longer), a guard against a hang; a cut is said (``fixed_count_cut``).
PEDANTIC_BUDGET_S = 3600.0


def pedantic_split(rounds: int) -> list[int]:
    """The rounds of each repetition (adding up to ``rounds``); one entry when too few to cut."""
    k = max(1, min(defaults.REPEATS, rounds // PEDANTIC_REPEAT_MIN_ROUNDS))
    return [rounds // k + (1 if i < rounds % k else 0) for i in range(k)]


def _repeated(run: Callable[[dict[str, Any]], Measurement], opts: dict[str, Any], split: Sequence[int],
              real_clock: bool) -> Measurement:
    """One measurement from ``run(opts)``, or, with a ``split`` of its trials into repetitions, from one
    run per repetition, merged (:func:`merge_repetitions`), with the machine's noise profile (or the
    prior) applied to the merged spread as ``benchmark()`` applies it to its own repetitions' (each
    run's own, with no spread to widen, would be lost in the merge). Ctrl-C in a repetition raises
    :class:`~measurefirst.measure.engine.Interrupted` with the repetitions done and the interrupted one's
    rounds merged, marked incomplete: none of the rounds measured is lost."""
    if len(split) < 2:
        return run(opts)
    from ..measure.engine import Interrupted
    from ..measure.noise import for_benchmark

    parts: list[Measurement] = []
    for t in split:
        try:
            parts.append(run({**opts, "trials": t, "noise_profile": False}))
        except Interrupted as exc:
            if isinstance(exc.partial, Measurement) and exc.partial.n_samples:
                parts.append(exc.partial)
            if not parts:
                raise
            merged = merge_repetitions(parts, trials=int(opts["trials"]))
            raise Interrupted(replace(merged, complete=False, stop=replace(merged.stop, reason="interrupted"))
                              ) from exc
    import torch

    return for_benchmark(merge_repetitions(parts, trials=int(opts["trials"])), opts.get("noise_profile"),
                         real_clock=real_clock, threads=torch.get_num_threads())


def merge_repetitions(parts: Sequence[Measurement], *, trials: int) -> Measurement:
    """Consecutive repetitions of one benchmark as one measurement: their samples in order, ``repeats``
    saying how many each took, and the spread of their medians as the run-to-run spread."""
    from ..measure.engine import repeat_spread

    first, last = parts[0], parts[-1]

    def joined(name: str) -> tuple[Any, ...] | None:
        seqs = [getattr(p, name) for p in parts]
        return None if any(x is None for x in seqs) else tuple(v for x in seqs for v in x)

    samples = joined("samples_ns")
    numbers = joined("numbers")
    assert samples is not None and numbers is not None
    stop = Stop(last.stop.reason, all(p.stop.target_met for p in parts), last.stop.precision,
                sum(p.stop.seconds for p in parts))
    merged = replace(first, samples_ns=samples, numbers=numbers, host_ns=joined("host_ns"),
                     preempted=joined("preempted"), synced_ns=joined("synced_ns"), stop=stop,
                     options={**first.options, "trials": trials}, complete=all(p.complete for p in parts),
                     reference=None, run_to_run=None, repeats=tuple(p.n_samples for p in parts))
    per_call = [float(x) for x in merged.per_call_ns]
    spread = repeat_spread(per_call, [p.n_samples for p in parts], [bool(u) for u in merged.used_mask])
    return replace(merged, run_to_run=spread)


class _Pedantic:
    """pytest-benchmark's ``pedantic`` calling convention: ``setup()`` may return ``(args, kwargs)``;
    ``teardown(*args, **kwargs)`` runs after each round (here: before the next round's setup, and
    after the last round), untimed."""

    def __init__(self, target: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any] | None,
                 setup: Callable[[], Any] | None, teardown: Callable[..., Any] | None) -> None:
        self.target, self.setup_fn, self.teardown_fn = target, setup, teardown
        self.args: tuple[Any, ...] = tuple(args)
        self.kwargs: dict[str, Any] = dict(kwargs or {})
        self.has_args = bool(self.args or self.kwargs)
        self.result: Any = None
        self.pending = False

    def prepare(self) -> None:
        self.finish()
        if self.setup_fn is not None:
            maybe = self.setup_fn()
            if maybe:
                if self.has_args:
                    raise TypeError("Can't use `args` or `kwargs` if `setup` returns the arguments.")
                args, kwargs = maybe
                self.args, self.kwargs = tuple(args), dict(kwargs)
        self.pending = self.teardown_fn is not None

    def call(self) -> None:
        self.result = self.target(*self.args, **self.kwargs)

    def finish(self) -> None:
        if self.pending and self.teardown_fn is not None:
            self.pending = False
            self.teardown_fn(*self.args, **self.kwargs)
