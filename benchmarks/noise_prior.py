"""Write measurefirst's prior (src/measurefirst/measure/noise_prior.py) from noise profiles measured on
the reference machine:

    MEASUREFIRST_PROFILE=/tmp/prior-1.json measurefirst selfcheck --noise --threads 1   # once per session
    python benchmarks/noise_prior.py /tmp/prior-1.json /tmp/prior-2.json ... \
        --inflation dispatch=3,compute=5.1,memory=3

The prior is what a run assumes where its machine has no noise profile (see
measurefirst.measure.noise): per workload, the entry of the profile whose fresh-process spread was the
largest (when in doubt, widen), and ``--inflation``, per kind of work, the ratio of the fresh-process
spread to the in-process one that `python benchmarks/runtorun.py --fresh` measured (the largest seen,
within noise.PRIOR_INFLATION_RANGE; see docs/benchmarks.md). The module is written whole; its docstring names the
profiles it came from.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pprint
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
from measurefirst.measure.noise import PRIOR_INFLATION_RANGE, NoiseProfile  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "src", "measurefirst", "measure", "noise_prior.py")


def combine(profiles: list[NoiseProfile]) -> dict[str, object]:
    """One profile: per workload (kind and duration to within a factor of 3), the widest entry."""
    widest: dict[tuple[str, int], dict[str, object]] = {}
    for p in profiles:
        for e in p.entries:
            key = (e.kind, round(math.log10(e.seconds) * 2) if e.kind == "python" else 0)
            if key not in widest or e.cv > float(widest[key]["cv"]):  # type: ignore[arg-type]
                widest[key] = e.to_dict()
    first = profiles[0]
    return {"schema_version": 1, "kind": "noise_profile", "key": first.key,
            "created": max(p.created for p in profiles), "torch_threads": first.torch_threads,
            "processes": min(p.processes for p in profiles), "entries": list(widest.values())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profiles", nargs="+", help="noise profiles measured by `measurefirst selfcheck --noise`")
    ap.add_argument("--inflation", required=True,
                    help="fresh-process spread over in-process spread by kind, as runtorun.py --fresh measured it: "
                         "dispatch=3,compute=5.1,memory=3")
    ap.add_argument("--measured", default="", help="where --inflation was measured (a line of the docstring)")
    args = ap.parse_args()
    lo, hi = PRIOR_INFLATION_RANGE
    inflation: dict[str, float] = {}
    for part in args.inflation.split(","):
        kind, _, value = part.partition("=")
        try:
            inflation[kind.strip()] = float(value)
        except ValueError:
            ap.error(f"--inflation takes KIND=FACTOR pairs (dispatch=3,compute=5.1,memory=3); got {part!r}")
    if set(inflation) != {"dispatch", "compute", "memory"}:
        ap.error(f"--inflation needs a factor for dispatch, compute and memory; got {', '.join(inflation) or 'none'}")
    for kind, factor in inflation.items():
        if not lo <= factor <= hi:
            ap.error(f"--inflation {kind} must be within {lo:g}..{hi:g} (noise.PRIOR_INFLATION_RANGE); got {factor:g}")
    profiles = [NoiseProfile.from_json(open(path, "rb").read()) for path in args.profiles]
    prior = combine(profiles)
    NoiseProfile.from_dict(prior)  # valid, or this raises
    shown = ", ".join(f"{kind} {factor:g}" for kind, factor in inflation.items())
    why = textwrap.fill(f"without a profile, by kind of work (read at a call's duration between the kinds' entries): "
                        f"{shown}" + (f", {args.measured}" if args.measured else "") + " (docs/benchmarks.md).", 100)
    sources = "".join(f"  - {p.key}, measured {p.created} ({p.processes} processes)\n" for p in profiles)
    text = f'''"""measurefirst's prior: what a run assumes about fresh processes where its machine has no noise
profile (see :mod:`measurefirst.measure.noise`). Written by ``python benchmarks/noise_prior.py``; do not
edit by hand.

``PRIOR``: a noise profile of the reference machine (the shared 2-vCPU development guest), per workload
the widest of these profiles, each measured with ``measurefirst selfcheck --noise --threads 1``:
{sources}
``PRIOR_INFLATION``: how much wider fresh processes spread than repetitions inside one, for a run
{why}
"""

from typing import Any

PRIOR: dict[str, Any] = {pprint.pformat(prior, width=100, sort_dicts=False)}

PRIOR_INFLATION: dict[str, float] = {inflation!r}
'''
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {os.path.normpath(OUT)}: inflation {shown}, floor from {len(profiles)} profiles")
    print(json.dumps(prior)[:200] + " ...")


if __name__ == "__main__":
    main()
