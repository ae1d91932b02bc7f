"""measurefirst's prior: what a run assumes about fresh processes where its machine has no noise
profile (see :mod:`measurefirst.measure.noise`). Written by ``python benchmarks/noise_prior.py``; do not
edit by hand.

``PRIOR``: a noise profile of the reference machine (the shared 2-vCPU development guest), per workload
the widest of these profiles, each measured with ``measurefirst selfcheck --noise --threads 1``:
  - vm/cpu/1threads, measured 2026-12-01T23:08:41+00:00 (6 processes)
  - vm/cpu/1threads, measured 2026-12-02T03:23:40+00:00 (6 processes)

``PRIOR_INFLATION``: how much wider fresh processes spread than repetitions inside one, for a run
without a profile, by kind of work (read at a call's duration between the kinds' entries): dispatch
3, compute 5.1, memory 3, measured by runtorun.py --fresh: the matmul 256 5.1 (2026-12-02; on
2026-12-05 two processes of ten 3% slow against 0.2% repetitions), the 1-elem add 2.2-2.3, the 32 MB
copy 0.8 and 3.6 (its interval held 10/10 at 3 both times) (docs/benchmarks.md).
"""

from typing import Any

PRIOR: dict[str, Any] = {'schema_version': 1,
 'kind': 'noise_profile',
 'key': 'vm/cpu/1threads',
 'created': '2026-12-02T03:23:40+00:00',
 'torch_threads': 1,
 'processes': 6,
 'entries': [{'kind': 'python',
              'seconds': 2.1468989772399887e-06,
              'cv': 0.01613939652994185,
              'within_cv': 0.002374642274447841,
              'processes': 6},
             {'kind': 'python',
              'seconds': 2.0159333333333335e-05,
              'cv': 0.00031263173965965043,
              'within_cv': 0.0002578474290399342,
              'processes': 6},
             {'kind': 'python',
              'seconds': 0.0002002935,
              'cv': 0.000522000709021017,
              'within_cv': 0.00015920737665949328,
              'processes': 6},
             {'kind': 'python',
              'seconds': 0.002002175,
              'cv': 0.001288293862673733,
              'within_cv': 0.4379793641925692,
              'processes': 6},
             {'kind': 'dispatch',
              'seconds': 1.2950745926019019e-06,
              'cv': 0.3392043196276166,
              'within_cv': 0.19554810504557346,
              'processes': 6},
             {'kind': 'compute',
              'seconds': 0.00034274874999999996,
              'cv': 0.02603417161839651,
              'within_cv': 0.017059160124962048,
              'processes': 6},
             {'kind': 'memory',
              'seconds': 0.0027937445,
              'cv': 0.3212500081001906,
              'within_cv': 0.06244075365295808,
              'processes': 6}]}

PRIOR_INFLATION: dict[str, float] = {'dispatch': 3.0, 'compute': 5.1, 'memory': 3.0}
