"""The command line's help, in English and Chinese, part two: the commands that say where the time goes
(``sweep``, ``profile``, ``step``, ``kernel``), that check and show (``peaks``, ``doctor``, ``demo``,
``selfcheck``), that read saved results (``runs``, ``history``, ``publish``, ``report``) and
``collectives``. Keys and rules as in :mod:`.words_cli_help`; merged into
:data:`measurefirst.render.words.WORDS`."""

CLI_HELP_MORE_WORDS = {
    # sweep
    "help.sweep": ("time vs size: throughput, a fitted cost model, the roofline, plots",
                   "耗时随规模的变化：吞吐量、拟合的成本模型、roofline、图表"),
    "help.sweep.description": (
        "TARGET is module:make_fn, a function of the size n that builds inputs and returns the callable to "
        "time; or use a built-in sweep with --op. Sizes and the --flops/--bytes expressions are checked, and "
        "evaluated at every size, before anything is measured.",
        "TARGET 是 module:make_fn，一个以规模 n 为参数的函数，它构造输入并返回要计时的可调用对象；或者用 --op "
        "选择一个内置的规模扫描。在测量任何东西之前，会先检查各个规模以及 --flops/--bytes 表达式，并在每个规模"
        "上求值。"),
    "help.sweep.target": ("module:make_fn or file.py:make_fn", "module:make_fn 或 file.py:make_fn"),
    "help.sweep.op": ("a built-in sweep", "一个内置的规模扫描"),
    "help.sweep.sizes": ("whole numbers: 64,128,...,4096 (doubling), 1000,2000,...,8000 (a constant step) or a "
                         "list; items may be expressions such as 2**10; at most 1000 sizes",
                         "整数：64,128,...,4096（逐次翻倍）、1000,2000,...,8000（固定步长）或一个列表；各项可以是 "
                         "2**10 这样的表达式；最多 1000 个规模"),
    "help.sweep.flops": ("FLOPs per call as an expression of n, e.g. '2*n**3'",
                         "每次调用的 FLOPs，写成 n 的表达式，例如 '2*n**3'"),
    "help.sweep.bytes": ("bytes moved per call as an expression of n, e.g. '12*n**2'",
                         "每次调用搬运的字节数，写成 n 的表达式，例如 '12*n**2'"),
    "help.sweep.dtype": ("dtype for built-in sweeps and peaks (default {default})",
                         "内置规模扫描和峰值所用的 dtype（默认 {default}）"),
    "help.sweep.precision": ("target half-width of the 95%% CI per size (default {default})",
                             "每个规模的 95%% 置信区间的目标半宽（默认 {default}）"),
    "help.sweep.budget": ("seconds per size at most (default {default})", "每个规模最多用时的秒数（默认 {default}）"),
    "help.sweep.reference": ("size the others are relative to (default 256, or the smallest)",
                             "作为其他规模参照的规模（默认 256，或最小的规模）"),
    "help.sweep.no_peaks": ("skip the machine peaks and the roofline", "跳过机器峰值和 roofline"),
    "help.sweep.plot": ("write plots: FILE.png|svg (+ FILE-throughput, FILE-roofline), atomically",
                        "写出图表：FILE.png|svg（另加 FILE-throughput、FILE-roofline），以原子方式写入"),
    # profile
    "help.profile": ("where the time goes: op and kernel tables, diffs, traces",
                     "时间花在哪里：算子表和核函数表、差异、trace"),
    "help.profile.description": (
        "TARGET: a statement (after -s setup) or module:function taking no arguments. Runs --warmup plain "
        "calls, then profiles --steps steps; every table is per step.",
        "TARGET：一条语句（在 -s setup 之后运行）或一个不带参数的 module:function。先运行 --warmup 次普通调用，"
        "再剖析 --steps 步；每张表都按每步计。"),
    "help.profile.vs": ("profile another and show them side by side (repeatable)",
                        "再剖析另一个目标，并排显示（可重复给出）"),
    "help.profile.steps": ("profiled (active) steps (default {default})", "剖析的（活动）步数（默认 {default}）"),
    "help.profile.warmup": ("plain calls before profiling (default {default})",
                            "剖析之前的普通调用次数（默认 {default}）"),
    "help.profile.view": ("work: ops that do the work, as the lecture counts them (default); all: every op, "
                          "bookkeeping too; top: top-level ops only",
                          "work：做实际工作的算子，按讲座的计数方式（默认）；all：所有算子，包括簿记类算子；"
                          "top：只看顶层算子"),
    "help.profile.sort": ("sort the op table by this column (default self time)",
                          "按这一列对算子表排序（默认 self，即自身耗时）"),
    "help.profile.row_limit": ("rows per table at most (default {default})", "每张表最多的行数（默认 {default}）"),
    "help.profile.group_by_shape": ("one row per op and input shape", "每个算子、每种输入形状一行"),
    "help.profile.trace": ("write a Chrome/Perfetto trace (JSON), atomically",
                           "写出 Chrome/Perfetto trace（JSON），以原子方式写入"),
    "help.profile.memory_snapshot": ("CUDA: write a memory snapshot (pickle)", "CUDA：写出显存快照（pickle）"),
    "help.profile.flops_by_module": ("count FLOPs per module (FlopCounterMode)", "按模块统计 FLOPs（FlopCounterMode）"),
    # step
    "help.step": ("time a training step phase by phase: memory, tokens/s, MFU, variants",
                  "分阶段为一个训练步计时：显存、tokens/s、MFU、变体"),
    "help.step.description": ("TARGET is module:build or file.py:build; {contract}",
                              "TARGET 是 module:build 或 file.py:build；{contract}"),
    "help.step.contract": (  # English: measurefirst.tools.targets.STEP_CONTRACT, as step's errors say it
        "build() must return a dict (or an object with these attributes): model (torch.nn.Module), "
        "optimizer (torch.optim.Optimizer), batches (an iterable of batches, or a callable returning the next "
        "batch), and optionally loss_fn(model, batch) -> loss (default: model(*inputs) where batch is "
        "(inputs, targets) and the loss is cross-entropy), micro_batch, seq_len",
        "build() 必须返回一个 dict（或具有这些属性的对象）：model（torch.nn.Module）、optimizer"
        "（torch.optim.Optimizer）、batches（批次的可迭代对象，或返回下一个批次的可调用对象），以及可选的 "
        "loss_fn(model, batch) -> loss（默认：model(*inputs)，其中 batch 为 (inputs, targets)，损失为交叉熵）、"
        "micro_batch、seq_len"),
    "help.step.variants": ("comma list of eager, compile, compile:BACKEND",
                           "逗号分隔的列表，取自 eager、compile、compile:BACKEND"),
    "help.step.dtypes": ("comma list of {dtypes} (autocast; float32, bfloat16, float16 alike)",
                         "逗号分隔的列表，取自 {dtypes}（autocast；也可写 float32、bfloat16、float16）"),
    "help.step.steps": ("timed steps (default {default})", "计时的步数（默认 {default}）"),
    "help.step.warmup": ("warm-up steps, not timed (default {default})", "预热步数，不计时（默认 {default}）"),
    "help.step.micro_batch": ("samples per micro-batch", "每个微批次的样本数"),
    "help.step.seq_len": ("tokens per sample (gives tokens/s)", "每个样本的 token 数（用于得出 tokens/s）"),
    "help.step.grad_accum": ("micro-batches per step (default 1)", "每步的微批次数（默认 1）"),
    "help.step.world_size": ("devices in the job (default 1)", "作业中的设备数（默认 1）"),
    "help.step.flops": ("count (FlopCounterMode), 6N, or a positive number per step",
                        "count（FlopCounterMode）、6N，或每步一个正数"),
    "help.step.no_peaks": ("skip the measured peak (MFU vs the table only)", "跳过实测峰值（MFU 只与规格表比较）"),
    "help.step.ddp": ("under torchrun: the step on every rank, the model under DistributedDataParallel; per-rank "
                      "phases, wait in collectives, global tokens/s, stragglers (rank 0 prints)",
                      "在 torchrun 下：每个 rank 上都运行训练步，模型包装在 DistributedDataParallel 中；给出每个 "
                      "rank 的各阶段、集合通信中的等待、全局 tokens/s、掉队者（由 rank 0 打印）"),
    "help.step.fsdp": ("as --ddp, the model under FSDP2 (fully_shard on each child with parameters, then the root)",
                       "同 --ddp，但模型包装在 FSDP2 中（先对每个带参数的子模块调用 fully_shard，再对根模块）"),
    "help.step.timeout": ("with --ddp/--fsdp: seconds a collective may wait before the group stops and names the "
                          "rank that failed or hangs (default {default})",
                          "配合 --ddp/--fsdp：集合通信最多等待的秒数，超过后进程组停止，并指出失败或挂起的 rank"
                          "（默认 {default}）"),
    # kernel
    "help.kernel": ("decode GPU kernel names: library, op, arch, dtype, tile, layout",
                    "解码 GPU 核函数名：库、算子、架构、dtype、tile、布局"),
    "help.kernel.description": ("Decode kernel names as they appear in profiles (cuBLAS, CUTLASS, Triton, "
                                "flash-attention, NCCL, ...).",
                                "解码剖析结果中出现的核函数名（cuBLAS、CUTLASS、Triton、flash-attention、NCCL 等）。"),
    # peaks
    "help.peaks": ("measure (or show the cached) matmul FLOP/s and copy bandwidth",
                   "测量（或显示已缓存的）矩阵乘法 FLOP/s 和拷贝带宽"),
    "help.peaks.description": (
        "The machine's measured peaks: a large matrix product's FLOP/s and a large copy's bytes/s on the "
        "device and dtype, cached in the results store per machine, device, dtype and thread count.",
        "这台机器的实测峰值：在该设备和 dtype 上，一次大矩阵乘法的 FLOP/s 和一次大拷贝的 bytes/s，按机器、设备、"
        "dtype 和线程数缓存在结果库中。"),
    "help.peaks.dtype": ("{dtype} (default), float16, bfloat16, float64, or fp32, fp16, bf16, fp64",
                         "{dtype}（默认）、float16、bfloat16、float64，或 fp32、fp16、bf16、fp64"),
    "help.peaks.refresh": ("measure again instead of using the cache", "重新测量，而不使用缓存"),
    # doctor
    "help.doctor": ("audit a function for measurement and performance pitfalls", "体检一个函数的测量陷阱与性能陷阱"),
    "help.doctor.description": ("TARGET: a statement (after -s setup) or module:function taking no arguments. Each "
                                "finding says what was measured, why it matters and what to do.",
                                "TARGET：一条语句（在 -s setup 之后运行）或一个不带参数的 module:function。每个发现项"
                                "都说明测到了什么、为什么重要以及该怎么做。"),
    "help.doctor.budget": ("seconds for the timing checks (default {default})", "计时检查所用的秒数（默认 {default}）"),
    "help.doctor.strict": ("exit 1 on any warning (for CI)", "有任何警告即以退出码 1 退出（用于 CI）"),
    # demo
    "help.demo": ("the lecture, runnable: timing traps, scaling, profiler, kernel names, a training step (zh/en)",
                  "可运行的讲座：计时陷阱、规模变化、profiler、核函数名、一个训练步（中文/英文）"),
    "help.demo.description": (
        "The lecture's five demonstrations, measured live on this machine: pitfalls (warm-up and "
        "synchronization), scaling (time vs size, the fitted cost model), profiler (the op table, 9 ops "
        "against 1), kernels (reading a kernel name) and mlp (a training step phase by phase).",
        "讲座的五个演示，在这台机器上现场测量：pitfalls（预热与同步）、scaling（耗时随规模的变化、拟合的成本"
        "模型）、profiler（算子表，9 个算子对 1 个）、kernels（读懂核函数名）和 mlp（分阶段的一个训练步）。"),
    "help.demo.which": ("which part (default all)", "哪一部分（默认 all）"),
    "help.demo.quick": ("smaller sizes: well under a minute on 2 CPU cores", "更小的规模：在 2 个 CPU 核上远不到一分钟"),
    "help.demo.json": ("also print the measured numbers as JSON", "另外以 JSON 打印测得的数字"),
    # selfcheck
    "help.selfcheck": ("check measurefirst's own accuracy here: known durations, the classic traps, the machine",
                       "在这台机器上检查 measurefirst 自身的准确度：已知时长、典型陷阱、机器"),
    "help.selfcheck.description": (
        "Times calls of known duration (CPU busy-waits of 2 us-2 ms; CUDA sleep kernels of 5 us-1 ms) with "
        "benchmark() in every mode and with the reference tools installed, against a truth taken during the "
        "same calls; checks that the classic traps are caught; describes the machine. Exit 0: pass; 1: a "
        "check failed; 3: the machine was too noisy or too busy to judge.",
        "用 benchmark() 的每种模式以及已安装的参考工具，为已知时长的调用计时（CPU 忙等 2 us-2 ms；CUDA sleep "
        "核函数 5 us-1 ms），并与同一批调用中取得的真实值对照；检查典型陷阱都能被发现；描述这台机器。退出码 0："
        "通过；1：某项检查失败；3：机器噪声太大或太忙，无法判定。"),
    "help.selfcheck.quick": ("shorter budgets: under 30 s on 2 CPU cores", "更短的预算：在 2 个 CPU 核上不到 30 s"),
    "help.selfcheck.noise": ("measure this machine's noise profile instead: how far medians move between fresh "
                             "processes, by call duration and kind of work; saved per machine ($MEASUREFIRST_PROFILE, "
                             "else ~/.cache/measurefirst/noise-HOST.json) and used by every benchmark() on the CPU",
                             "改为测量这台机器的噪声画像：按调用时长和工作类型，中位数在新进程之间移动多远；按机器"
                             "保存（$MEASUREFIRST_PROFILE，否则 ~/.cache/measurefirst/noise-HOST.json），并由 CPU "
                             "上的每次 benchmark() 使用"),
    "help.selfcheck.processes": ("with --noise: fresh processes (default 6; 2 with --quick)",
                                 "配合 --noise：新进程的个数（默认 6；使用 --quick 时为 2）"),
    "help.selfcheck.threads": ("with --noise: torch threads to profile (default: torch's current count); a benchmark "
                               "uses the profile of the threads it runs with, e.g. --threads 1 for "
                               "torch.set_num_threads(1)",
                               "配合 --noise：要测量其画像的 torch 线程数（默认：torch 当前的线程数）；基准测试使用"
                               "与其运行线程数对应的画像，例如 torch.set_num_threads(1) 对应 --threads 1"),
    # runs
    "help.runs": ("list, show, delete, export, prune, copy or import saved runs",
                  "列出、显示、删除、导出、清理、复制或导入保存的运行"),
    "help.runs.description": (
        "The results history: list the latest saved runs (of one NAME, kind, machine, or since a date), "
        "show or export some by id, delete them, prune old ones (runs matching every rule given are "
        "deleted, then their space is given back; vacuum gives it back alone), or copy every run of one "
        "store into another (SQLite file or PostgreSQL URL, either way). show displays each kind of result "
        "with its own renderer. import brings another tool's history in (pytest-benchmark's .benchmarks folder "
        "or JSON files, pyperf's JSON): each benchmark saved under its name with its run's time and commit. "
        "Only import and copy create a store: otherwise a missing one is an error.",
        "结果历史：列出最近保存的运行（某个 NAME、某种类型、某台机器的，或某个日期以来的），按 id 显示或导出"
        "其中一些，删除它们，清理旧的运行（符合所给全部规则的运行会被删除，然后归还其占用的空间；vacuum 只归还"
        "空间），或者把一个结果库中的每次运行复制到另一个结果库（SQLite 文件或 PostgreSQL URL，两个方向皆可）。"
        "show 用各自的渲染器显示每种结果。import 导入另一个工具的历史（pytest-benchmark 的 .benchmarks 文件夹或 "
        "JSON 文件、pyperf 的 JSON）：每个基准测试以其名字保存，带上其运行的时间和提交。只有 import 和 copy 会"
        "创建结果库：否则结果库不存在就是错误。"),
    "help.runs.action": ("list (default), show, delete, export, prune, vacuum, copy or import",
                         "list（默认）、show、delete、export、prune、vacuum、copy 或 import"),
    "help.runs.ids": ("run ids such as 12 or #12 (show, delete, export), a NAME (list), SRC DST (copy), or files "
                      "and folders (import)",
                      "运行 id，如 12 或 #12（show、delete、export），一个 NAME（list），SRC DST（copy），或文件"
                      "和文件夹（import）"),
    "help.runs.limit": ("list the latest N runs (default {default})", "列出最近的 N 次运行（默认 {default}）"),
    "help.runs.all": ("list every run", "列出所有运行"),
    "help.runs.name": ("list (or prune) only the runs of this name", "只列出（或清理）这个名字的运行"),
    "help.runs.kind": ("list (or prune) only the runs of this kind (measurement, count, regression, ...)",
                       "只列出（或清理）这种类型的运行（measurement、count、regression 等）"),
    "help.runs.machine": ("list (or prune) only the runs saved on this host name",
                          "只列出（或清理）在这个主机名上保存的运行"),
    "help.runs.since": ("list (or prune) only the runs created since WHEN: an age (7d, 12h, 90m) or a date "
                        "(2026-11-01)",
                        "只列出（或清理）WHEN 以来创建的运行：一个时长（7d、12h、90m）或一个日期（2026-11-01）"),
    "help.runs.keep_last": ("prune: delete the runs beyond the latest K of each name",
                            "prune：每个名字只保留最近的 K 次运行，删除其余的"),
    "help.runs.older_than": ("prune: delete the runs created before AGE ago (30d, 12h) or before a date",
                             "prune：删除在 AGE 之前（30d、12h）或某个日期之前创建的运行"),
    "help.runs.format": ("export format (default json, with raw samples)", "导出格式（默认 json，含原始样本）"),
    "help.runs.as": ("import: save each benchmark as NAME/<test node id>, as `pytest --mf --mf-save NAME` does, "
                     "so that `pytest --mf --mf-compare NAME` compares with it (default: under its test name)",
                     "import：把每个基准测试保存为 NAME/<test node id>，与 `pytest --mf --mf-save NAME` 的做法相同，"
                     "这样 `pytest --mf --mf-compare NAME` 就能与之比较（默认：保存在其测试名下）"),
    # history
    "help.history": ("the saved series of one benchmark, with step changes flagged",
                     "一个基准测试保存的序列，标出阶跃变化"),
    "help.history.description": ("The latest saved runs of NAME (-n, --all), oldest first, with the change against "
                                 "the run before and the steps (changes beyond both CIs and 2%) flagged.",
                                 "NAME 最近保存的运行（-n、--all），最旧的在前，给出与前一次运行相比的变化，并标出"
                                 "阶跃（超出双方置信区间且超过 2% 的变化）。"),
    "help.history.limit": ("the latest N runs (default {default}; with --changes, every run)",
                           "最近的 N 次运行（默认 {default}；使用 --changes 时为所有运行）"),
    "help.history.all": ("every run", "所有运行"),
    "help.history.changes": ("read the series whole: its segments with their levels, the change points between them "
                             "(commit, ratio, interval, p-value) and drifts; one outlier or a disturbed run is not a "
                             "change",
                             "整体解读这个序列：各分段及其水平、分段之间的变化点（提交、比值、区间、p 值）以及漂移；"
                             "单个离群值或一次受干扰的运行不算变化"),
    # publish
    "help.publish": ("a static dashboard of the whole history: every benchmark, its series, its change points",
                     "整个历史的静态看板：每个基准测试、它的序列、它的变化点"),
    "help.publish.description": (
        "Writes a self-contained site (no network needed to view it) to FOLDER: index.html lists every benchmark "
        "on every machine with its latest value and the latest change point or drift of its whole series; a "
        "page per benchmark and machine shows its series (each run's interval, the segments' levels, the "
        "change points), its changes in words and its latest runs; the same pages in Chinese under zh/. From "
        "SQLite or PostgreSQL; no sample is read.",
        "把一个自包含的网站（查看时无需网络）写入 FOLDER：index.html 列出每台机器上的每个基准测试，给出其最新值"
        "以及整个序列最近的变化点或漂移；每个基准测试、每台机器一页，显示其序列（每次运行的区间、各分段的水平、"
        "变化点）、用文字描述的变化以及最近的运行；zh/ 下是同样的中文页面。数据来自 SQLite 或 PostgreSQL；不读取"
        "任何样本。"),
    "help.publish.output": ("the folder to write the site into (made if missing; only the site's own files are "
                            "replaced)",
                            "写入网站的文件夹（不存在时会创建；只替换网站自己的文件）"),
    "help.publish.name": ("only this benchmark and the suite under it (NAME/...)",
                          "只包括这个基准测试及其下的套件（NAME/...）"),
    "help.publish.commit_url": ("link each commit: a URL with {commit} in it, e.g. "
                                "https://github.com/org/repo/commit/{commit}",
                                "为每个提交加上链接：一个含有 {commit} 的 URL，例如 "
                                "https://github.com/org/repo/commit/{commit}"),
    "help.publish.title": ("the site's title", "网站的标题"),
    # report
    "help.report": ("one self-contained HTML page of any results: plots, tables, findings (en/zh)",
                    "把任何结果做成一个自包含的 HTML 页面：图表、表格、发现项（中文/英文）"),
    "help.report.description": (
        "Each TARGET is a results file (the JSON of --json or -o: measurements, comparisons, sweeps, "
        "profiles, steps, doctor), a saved run (#ID, @NAME, @NAME~K) or the name of a history in the "
        "store. The page needs no network: styles, script and SVG plots are inline.",
        "每个 TARGET 是一个结果文件（--json 或 -o 输出的 JSON：测量、比较、规模扫描、剖析、训练步、doctor）、"
        "一次保存的运行（#ID、@NAME、@NAME~K），或结果库中一个历史的名字。页面不需要网络：样式、脚本和 SVG "
        "图表都内嵌其中。"),
    "help.report.output": ("the file to write, e.g. report.html (or summary.md with --format markdown)",
                           "要写入的文件，例如 report.html（使用 --format markdown 时为 summary.md）"),
    "help.report.format": ("html: the page; markdown: the tables of pytest runs (--mf-json) and regression "
                           "checks, e.g. for $GITHUB_STEP_SUMMARY (default: from -o's name, .html or .md)",
                           "html：页面；markdown：pytest 运行（--mf-json）和回退检查的表格，例如用于 "
                           "$GITHUB_STEP_SUMMARY（默认：由 -o 的文件名决定，.html 或 .md）"),
    "help.report.lang": ("language of the page (default en)", "页面的语言（默认 en）"),
    "help.report.theme": ("auto follows the system (the page has a toggle); default auto",
                          "auto 跟随系统（页面上有切换按钮）；默认 auto"),
    "help.report.title": ("the page's title", "页面的标题"),
    # collectives
    "help.collectives": ("collective bandwidth per op and size (nccl-tests' algbw/busbw)",
                         "每种操作、每个规模的集合通信带宽（nccl-tests 的 algbw/busbw）"),
    "help.collectives.description": (
        "Time all_reduce, all_gather, reduce_scatter, broadcast, all_to_all and send/recv over a size sweep and "
        "report time, algorithm bandwidth and bus bandwidth as nccl-tests does (size: the op's total buffer in "
        "bytes). Run under `torchrun --nproc-per-node N -m measurefirst collectives ...`, or give --nproc N to "
        "start a local gloo group. Only rank 0 prints and writes.",
        "在一系列规模上为 all_reduce、all_gather、reduce_scatter、broadcast、all_to_all 和 send/recv 计时，并像 "
        "nccl-tests 那样报告耗时、算法带宽和总线带宽（规模：该操作的总缓冲区字节数）。在 `torchrun "
        "--nproc-per-node N -m measurefirst collectives ...` 下运行，或给出 --nproc N 启动一个本地 gloo 进程组。"
        "只有 rank 0 打印和写文件。"),
    "help.collectives.sizes": ("total buffer sizes in bytes, K/M/G suffixes, e.g. 1K,4K,...,16M (default)",
                               "缓冲区总大小，单位字节，可带 K/M/G 后缀，例如 1K,4K,...,16M（默认）"),
    "help.collectives.ops": ("comma-separated, from {ops} (default all)", "逗号分隔，取自 {ops}（默认全部）"),
    "help.collectives.dtype": ("element type (default float32)", "元素类型（默认 float32）"),
    "help.collectives.warmup": ("untimed calls per op and size (default 5)", "每种操作、每个规模不计时的调用次数（默认 5）"),
    "help.collectives.trials": ("timed samples per op and size (default 20)", "每种操作、每个规模计时的样本数（默认 20）"),
    "help.collectives.budget": ("seconds at most: the ops and sizes left when it is spent are not measured (default: "
                                "no limit)",
                                "最多用时的秒数：用完时剩下的操作和规模不再测量（默认：不限）"),
    "help.collectives.nproc": ("outside torchrun: spawn N local ranks (gloo)", "不在 torchrun 下时：启动 N 个本地 rank（gloo）"),
    "help.collectives.timeout": ("seconds any collective may wait before the group stops (default {default})",
                                 "任一集合通信最多等待的秒数，超过后进程组停止（默认 {default}）"),
}
