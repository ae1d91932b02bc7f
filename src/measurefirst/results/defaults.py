"""The defaults and the choices of the library's options, each written once, in a module that imports
nothing: the functions take their defaults from here (``benchmark``, ``Options``, ``compare``,
``sweep``, ``profile``, ``doctor``, the step timers), and the command line shows and checks the same
values without importing torch."""

# ---- benchmark() and engine.Options ---------------------------------------------------------------
PRECISION = 0.01  # target half-width of the median's 95% CI, relative
BUDGET_S = 5.0
MIN_TIME_S = 0.2
MIN_SAMPLES = 10
WARMUP_MIN_TIME_S = 0.05
WARMUP_MAX_TIME_S = 1.0
#: Seconds of calls that compiled (torch.compile: dynamo, inductor, autotuning) a run may spend before it
#: stops; they are not charged to the budget (see measurefirst.measure.compiling).
COMPILE_LIMIT_S = 1800.0
#: Independent repetitions inside one call, each with its own warm-up and calibration: their spread is
#: the run-to-run spread the call measures itself (see measurefirst.measure.engine).
REPEATS = 5
#: The largest whole-number option anywhere (loop counts, trials, warm-up calls, steps...): a count
#: beyond it cannot finish (``itertools.repeat`` overflows past 2**63), so it is refused up front.
MAX_COUNT = 10**9
#: The timers by name: ``auto`` (events on GPUs, the wall clock on the CPU), ``wall``, ``event``.
TIMERS = ("auto", "wall", "event")
#: What ``benchmark(..., count=...)`` can count.
COUNT_EVENTS = ("instructions",)

# ---- compare() -------------------------------------------------------------------------------------
COMPARE_PRECISION = 0.005  # "no difference" needs the speed-up CI within ±this
COMPARE_BUDGET_S = 5.0
COMPARE_MIN_TIME_S = 1.0  # enough rounds to see the machine's load change
#: In the pytest plugin (measure.compare, --mf-against), a comparison's minimum time of rounds is at most
#: this share of its budget.
COMPARE_MIN_TIME_SHARE = 0.5
BLOCK_TIME_S = 0.005  # one candidate's turn in a round
BISECT_BUDGET_S = 2.0  # seconds per comparison of two commits in `measurefirst bisect` (both sides, all pairs)
#: The order of the candidates in a round: forwards then backwards, or a seeded shuffle.
ORDERS = ("abba", "shuffle")

# ---- sweep() and peaks() ---------------------------------------------------------------------------
SWEEP_BUDGET_S = 2.0  # per size
SWEEP_PRECISION = 0.01
#: The built-in sweeps (``measurefirst sweep --op``).
SWEEP_OPS = ("matmul", "add", "copy", "gelu")
DTYPE = "float32"

# ---- profile() -------------------------------------------------------------------------------------
PROFILE_STEPS = 3
#: The most active steps a profile takes: the profiler keeps every event of every step in memory, and a
#: profile has no time budget (issue 38: `profile 1 --steps 1000000000` ran without end).
PROFILE_MAX_STEPS = 10_000
#: The most steps (timed or warm-up) ``step`` takes: it has no time budget, its steps are counted (issue 38:
#: `step --steps 1000000000` ran without end).
STEP_MAX_STEPS = 100_000
PROFILE_WARMUP = 2
#: The op table's views: the ops that do the work, every op, top-level ops only.
VIEWS = ("work", "all", "top")
SORTS = ("self", "total", "calls", "device", "flops", "bytes", "name", "memory")
ROW_LIMIT = 25

# ---- doctor() --------------------------------------------------------------------------------------
DOCTOR_BUDGET_S = 3.0

# ---- training steps --------------------------------------------------------------------------------
STEP_WARMUP = 3
COMPARE_STEPS = 10  # timed steps per variant in compare_steps() (and `measurefirst step`)
#: Autocast dtypes of a step, by their short names.
STEP_DTYPES = ("fp32", "bf16", "fp16")

# ---- the lecture (the languages and the report's themes: measurefirst.render.words.LANGS, THEMES) --------
#: The lecture's demonstrations, in order (``measurefirst demo``).
DEMOS = ("pitfalls", "scaling", "profiler", "kernels", "mlp", "compile")

# ---- the results store ------------------------------------------------------------------------------
#: ``measurefirst runs`` and ``history`` show this many runs, the latest, unless told otherwise (``-n``,
#: ``--all``), like ``git log -n``: their answers do not grow with the store.
RUNS_SHOWN = 20

# ---- regression checks of saved results ------------------------------------------------------------
#: The run-to-run spread of one run's median (relative standard deviation) assumed when no history of
#: the benchmark measures it (see :data:`measurefirst.results.regression_checks.RUN_TO_RUN_CV`).
RUN_TO_RUN_CV = 0.02

#: The most fresh interpreters ``--processes`` starts (``bench``, ``selfcheck --noise``): each imports torch
#: and measures for a share of the budget; beyond this the command would run for hours (or never end).
MAX_PROCESSES = 64
#: ``processes=K`` gives each fresh interpreter ``budget / K``: below the shortest warm-up a process cannot
#: warm up and sample, and K start-ups (a few seconds each) would buy nothing (issue 38: ``--processes 64
#: --budget 0.3`` started 64 interpreters for 4.7 ms each, minutes in all)
MIN_PROCESS_SHARE_S = WARMUP_MIN_TIME_S
