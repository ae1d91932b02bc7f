"""``measurefirst selfcheck --noise``: measure the machine's noise profile (:mod:`measurefirst.measure.noise`),
save it, show it. Parse is done (:mod:`measurefirst.cli.parser`); this is the one library call and its
emission, kept out of ``cli.py`` so that it stays thin."""

from __future__ import annotations

import argparse
import os
import sys

from .emit import say as _say
from .emit import show as _show
from ..results.errors import UsageError
from .guard import EXIT_FAILED, EXIT_OK
from .guard import lang_of as _lang


def _check(args: argparse.Namespace) -> None:
    from .emit import check

    check(args.output, None, None)


def cmd_noise(args: argparse.Namespace) -> int:
    """``selfcheck --noise``: measure this machine's noise profile, save it, show it."""
    from ..measure.noise import NoiseProfileError, noise_profile, profile_path, run_inflation
    from ..render.noise import noise_lines, noise_progress, noise_table
    from ..render.words import word
    from ..results.safeio import strict_json, write_atomic

    lang = _lang(args)
    if not args.noise:
        raise UsageError("--processes and --threads go with --noise (the fresh processes of the noise profile)")
    if args.save is not None or args.simulate is not None or args.fault is not None:
        raise UsageError("selfcheck --noise saves the profile per machine (not in the results store) and runs on "
                         "the real clock; drop --save/--simulate")
    if getattr(args, "device", "auto") not in ("auto", "cpu"):
        raise UsageError(f"selfcheck --noise profiles this machine's CPU processes; --device {args.device} does "
                         f"not apply (drop it, or run selfcheck --device {args.device} without --noise)")
    cpus = os.cpu_count() or 1
    if args.threads is not None and args.threads > cpus:
        raise UsageError(f"--threads {args.threads}: this machine has {cpus} CPU(s); profile at most {cpus} threads "
                         f"(the count a benchmark runs with, e.g. --threads 1)")
    _check(args)
    try:
        profile = noise_profile(args.processes, args.quick, progress=lambda i, n: _say(noise_progress(i, n, lang)),
                                threads=args.threads)
    except NoiseProfileError as exc:  # a worker process failed: its message holds its stderr
        _say(word("failed_line", lang, error=exc, hint=""))
        return EXIT_FAILED
    text = strict_json(profile.to_dict(), indent=2)
    if args.json:
        sys.stdout.write(text + "\n")
    else:
        _show([noise_table(profile, lang), *noise_lines(profile, str(profile_path(profile.torch_threads)), lang,
                                                        lambda seconds: run_inflation(profile, seconds))])
    if args.output is not None:
        write_atomic(args.output, text + "\n")
    return EXIT_OK
