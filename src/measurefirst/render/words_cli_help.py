"""The command line's help (``measurefirst [COMMAND] --help``), in English and Chinese, part one: argparse's
own words, the top level, the options several commands share, and the commands that time code (``bench``,
``compare``, ``bisect``); the other commands' help is in :mod:`.words_cli_help_more`. A table of the one
format of :data:`measurefirst.render.words.Words`, merged into :data:`measurefirst.render.words.WORDS`.

Keys: ``help.COMMAND`` (its line in the list of commands), ``help.COMMAND.description`` and
``help.COMMAND.OPTION``; ``help.common.*`` and ``help.compile.*`` are the options several commands share.
argparse formats a help text with ``%``: a percent sign is written ``%%``, in every language. Option names,
metavars, choices, units and code stay as they are in every language."""

CLI_HELP_WORDS = {
    # argparse's own words (English: argparse's, as it prints them)
    "help.argparse.usage": ("usage: ", "用法："),
    "help.argparse.positionals": ("positional arguments", "位置参数"),
    "help.argparse.options": ("options", "选项"),
    "help.argparse.heading_end": (":", "："),
    "help.argparse.help": ("show this help message and exit", "显示此帮助信息并退出"),
    "help.argparse.version": ("show program's version number and exit", "显示程序的版本号并退出"),
    # the top level
    "help.top.description": ("Correct measurement of PyTorch code: measure first, then optimize.",
                             "正确测量 PyTorch 代码：先测量，再优化。"),
    "help.top.epilog": ("Bad input exits 2 with one line saying what to do; a failure of the code under test exits 1; "
                        "Ctrl-C shows what was measured so far and exits 130.",
                        "错误输入以退出码 2 退出，并用一行说明该怎么做；被测代码失败时退出码为 1；Ctrl-C 会显示"
                        "目前已测得的内容，并以退出码 130 退出。"),
    # the options several commands share
    "help.common.setup": ("setup statement, run once (repeatable)", "setup 语句，只运行一次（可重复给出）"),
    "help.common.device": ("auto (cuda, then mps, then cpu), cpu, cuda, cuda:1 or mps (default auto)",
                           "auto（依次尝试 cuda、mps、cpu）、cpu、cuda、cuda:1 或 mps（默认 auto）"),
    "help.common.quiet": ("no progress line on stderr (it is shown only on a terminal, and never with --json)",
                          "不在 stderr 上显示进度行（进度行只在终端上显示，使用 --json 时从不显示）"),
    "help.common.json": ("print the result as JSON instead of the table", "以 JSON 打印结果，而不是表格"),
    "help.common.output": ("also write the JSON result to this file (atomically)",
                           "另外把 JSON 结果写入此文件（以原子方式）"),
    "help.common.save": ("save the result in the history store (under {name}; default: each label)",
                         "把结果保存到历史结果库中（保存在 {name} 名下；默认：各自的标签）"),
    "help.common.store": ("results store: a file (default .measurefirst/results.db) or a postgresql:// URL; or "
                          "$MEASUREFIRST_STORE",
                          "结果库：一个文件（默认 .measurefirst/results.db）或一个 postgresql:// URL；也可由 "
                          "$MEASUREFIRST_STORE 给出"),
    "help.common.store_peaks": ("{store}; holds the peaks cache", "{store}；峰值缓存也存放在其中"),
    "help.common.store_cache": ("{store}; holds the cache", "{store}；缓存也存放在其中"),
    "help.common.lang": ("language of the tables, lines and findings' words (also in --json): en or zh "
                         "(default: from the locale, LC_ALL/LC_MESSAGES/LANG)",
                         "表格、状态行和发现项文字的语言（--json 中也是）：en 或 zh（默认：由区域设置决定，"
                         "LC_ALL/LC_MESSAGES/LANG）"),
    "help.common.timer": ("auto: events on GPUs, wall clock on the CPU", "auto：GPU 上用事件计时，CPU 上用挂钟时间"),
    "help.common.label": ("label for each target, in order (at most one each)",
                          "每个目标的标签，按顺序给出（每个目标至多一个）"),
    # --compile (bench: one mode; compare: several) and what goes with it
    "help.compile.one": ("time the target compiled with torch.compile (MODE: one of {modes}; default mode alone); "
                         "the compile is shown apart, off the budget",
                         "为用 torch.compile 编译后的目标计时（MODE：{modes} 之一；只给出选项时用默认模式）；"
                         "编译单独显示，不计入预算"),
    "help.compile.several": ("also time each target compiled with torch.compile in each MODE (alone: torch's default "
                             "mode; modes: {modes}), interleaved with the eager ones; the table adds each one's "
                             "compile time and the calls until compiling pays for itself",
                             "另外为每个目标以每种 MODE 用 torch.compile 编译后的版本计时（只给出选项时：torch 的"
                             "默认模式；模式：{modes}），与 eager 版本交错运行；表格会加上各自的编译耗时，以及编译"
                             "回本所需的调用次数"),
    "help.compile.fail_on_recompile": ("refuse to measure through a recompile while sampling (torch's "
                                       "fail_on_recompile stance) instead of taking the sample again",
                                       "采样时遇到重新编译就拒绝继续测量（即 torch 的 fail_on_recompile 做法），"
                                       "而不是重新采集这个样本"),
    "help.compile.limit": ("seconds of calls that compiled, in all, before the run stops (they are kept off the "
                           "budget; default {default})",
                           "发生编译的调用累计达到多少秒时停止运行（这些调用不计入预算；默认 {default}）"),
    # bench
    "help.bench": ("time statements or functions, device-aware (like python -m timeit)",
                   "为语句或函数计时，感知设备（类似 python -m timeit）"),
    "help.bench.description": (
        "Time each TARGET: a Python statement (run after the -s setup, with `torch` imported and `device` set to "
        "the chosen device string; it runs inside a function, so a name it assigns is local to it) or "
        "module:function / path.py:function naming a function that takes no arguments. Each target is one "
        "row of the table. Every target and every output path is checked before anything is measured.",
        "为每个 TARGET 计时：一条 Python 语句（在 -s setup 之后运行，其中已导入 `torch`，`device` 设为所选的"
        "设备字符串；它在一个函数内运行，所以它赋值的名字是该函数的局部变量），或者 module:function / "
        "path.py:function，指向一个不带参数的函数。每个目标是表格中的一行。在测量任何东西之前，会先检查每个"
        "目标和每个输出路径。"),
    "help.bench.targets": ("statement, module:function or file.py:function",
                           "语句、module:function 或 file.py:function"),
    "help.bench.precision": ("stop when the 95%% CI of the median is within ±this, as 0.01 or 1%% (default {default})",
                             "中位数的 95%% 置信区间在 ±此值以内时停止，写作 0.01 或 1%%（默认 {default}）"),
    "help.bench.budget": ("seconds per target at most (default {default})", "每个目标最多用时的秒数（默认 {default}）"),
    "help.bench.min_time": ("seconds of sampling at least (default {default})", "至少采样的秒数（默认 {default}）"),
    "help.bench.min_samples": ("samples at least (default {default})", "样本数下限（默认 {default}）"),
    "help.bench.max_samples": ("samples at most (default: no limit)", "样本数上限（默认：不限）"),
    "help.bench.warmup": ("fixed number of warm-up calls (default: until steady)",
                          "固定的预热调用次数（默认：预热到稳定为止）"),
    "help.bench.warmup_time": ("cap on adaptive warm-up, seconds (default {default})",
                               "自适应预热的时间上限，单位秒（默认 {default}）"),
    "help.bench.trials": ("fixed number of samples (default: adaptive)", "固定的样本数（默认：自适应）"),
    "help.bench.repeats": ("independent repetitions inside the call, each with its own warm-up and calibration; "
                           "their spread is the run-to-run spread the headline interval holds (default {default}; "
                           "1 with --trials, and then the interval is this run's precision only)",
                           "本次调用内的独立重复次数，每次重复各自预热和校准；它们之间的离散度就是主区间所包含的"
                           "运行间离散度（默认 {default}；使用 --trials 时为 1，此时区间只是本次运行的精度）"),
    "help.bench.number": ("calls per sample (default: calibrated)", "每个样本的调用次数（默认：校准得出）"),
    "help.bench.cold_cache": ("flush the last-level cache before each sample", "每个样本之前清空末级缓存"),
    "help.bench.cuda_graph": ("capture the calls in a CUDA graph and time replays",
                              "把调用捕获到一个 CUDA graph 中，为其重放计时"),
    "help.bench.no_stop_early": ("spend the whole budget even when the interval has settled wider than --precision "
                                 "(default: stop after about a second with the interval this machine gives)",
                                 "即使区间已稳定在比 --precision 更宽的水平，也用完整个预算（默认：约一秒后停止，"
                                 "采用这台机器所能给出的区间）"),
    "help.bench.count": ("count instead of timing: user-space instructions per call, in a fresh process "
                         "(hardware counters, else valgrind's callgrind); deterministic, for CI gates. "
                         "--number sets the calls per repeat, --trials the repeats, --warmup the uncounted calls",
                         "用计数代替计时：在一个新进程中统计每次调用的用户态指令数（用硬件计数器，否则用 valgrind "
                         "的 callgrind）；结果是确定的，适合 CI 把关。--number 设定每次重复的调用次数，--trials "
                         "设定重复次数，--warmup 设定不计数的调用次数"),
    "help.bench.keep_preempted": ("use samples during which the OS preempted the process (default: set them aside)",
                                  "使用进程被操作系统抢占期间的样本（默认：将其剔除）"),
    "help.bench.processes": ("measure in K fresh interpreters, one after the other, each with budget/K seconds, and "
                             "take the run-to-run spread from them (default: repetitions in this process)",
                             "在 K 个新的解释器中依次测量，每个用 budget/K 秒，并由它们得出运行间离散度（默认：在"
                             "本进程内重复）"),
    # compare
    "help.compare": ("compare candidates interleaved (live), or saved results (regression check)",
                     "交错比较各候选（现场运行），或比较保存的结果（回退检查）"),
    "help.compare.description": (
        "Live: each TARGET is a statement or module:function, run interleaved with the others; the first is "
        "the baseline. Saved: every TARGET is a results file (*.json), #ID (a saved run), @NAME (its latest run) "
        "or @NAME~K (K runs back); with a single @NAME the latest run is checked against the one before. A "
        "target that looks saved (*.json, #ID, @NAME) is never run as code: a missing file is an error. "
        "--save keeps each measurement and the verdicts; -o writes them.",
        "现场运行：每个 TARGET 是一条语句或 module:function，与其他目标交错运行；第一个是基线。保存的结果："
        "每个 TARGET 是一个结果文件（*.json）、#ID（一次保存的运行）、@NAME（它最近的一次运行）或 @NAME~K"
        "（往前第 K 次运行）；只给出一个 @NAME 时，用最近一次运行与前一次比较。看起来是保存结果的目标（*.json、"
        "#ID、@NAME）永远不会被当作代码运行：文件不存在就是错误。--save 保存每次测量和结论；-o 把它们写入文件。"),
    "help.compare.precision": ("'no difference' needs the speed-up CI within ±this (default {default})",
                               "判定“未检出差异”需要加速比的置信区间在 ±此值以内（默认 {default}）"),
    "help.compare.budget": ("seconds at most (default {default})", "最多用时的秒数（默认 {default}）"),
    "help.compare.min_time": ("seconds of rounds at least, enough to see the machine's load change (default {default})",
                              "各轮至少运行的秒数，足以看到机器负载的变化（默认 {default}）"),
    "help.compare.block_time": ("seconds per block, one candidate's turn in a round (default {default})",
                                "每个块的秒数，即一轮中一个候选的一次轮值（默认 {default}）"),
    "help.compare.order": ("order of the candidates in each round: abba (rounds in pairs, an order then its reverse: a "
                           "linear drift hits all alike; each pair's order drawn with the seed) or shuffle (a seeded "
                           "random order per round); default abba",
                           "每轮中各候选的顺序：abba（轮次成对，先一种顺序再反过来：线性漂移对所有候选影响相同；"
                           "每对的顺序由随机种子抽取）或 shuffle（每轮一个由种子决定的随机顺序）；默认 abba"),
    "help.compare.baseline": ("label of the baseline (default: the first)", "基线的标签（默认：第一个）"),
    "help.compare.cold_cache": ("flush the last-level cache before each sample (times each call alone)",
                                "每个样本之前清空末级缓存（每次调用单独计时）"),
    "help.compare.fail_if_slower": ("exit 1 if a candidate or saved result is slower beyond its CI and this threshold "
                                    "(5%% or 0.05; a bare number above 1 is refused); alone: the CI decides for times, "
                                    "0.5%% more work for counts",
                                    "某个候选或保存的结果变慢超出其置信区间和此阈值时以退出码 1 退出（5%% 或 "
                                    "0.05；大于 1 的裸数字会被拒绝）；只给出选项时：时间由置信区间判定，计数则以"
                                    "多出 0.5%% 的工作量为准"),
    "help.compare.run_to_run": ("saved results: the run-to-run spread of one run's median (relative standard "
                                "deviation) that the intervals include (default: measured from 8 or more saved runs "
                                "of @NAME, else {default} assumed)",
                                "保存的结果：区间所计入的、单次运行中位数的运行间离散度（相对标准差）（默认：由 "
                                "@NAME 的 8 次或更多次保存的运行测得，否则假定为 {default}）"),
    "help.compare.against": ("code against code: each TARGET measured in REF (a branch, tag or commit, checked out in "
                             "a temporary git worktree, or the path of another checkout) and in this tree, in fresh "
                             "worker interpreters, their rounds interleaved; with --fail-if-slower, exit 1 when this "
                             "tree is slower",
                             "代码对代码：每个 TARGET 分别在 REF（一个分支、标签或提交，检出到临时的 git worktree "
                             "中；或另一个检出目录的路径）和当前目录树中、在新的工作解释器里测量，两边各轮交错进行；"
                             "配合 --fail-if-slower，当前目录树更慢时以退出码 1 退出"),
    "help.compare.against_pairs": ("with --against: worker pairs per target (default 4; fresh interpreters land in "
                                   "different speed modes, and the scatter between pairs is in the interval)",
                                   "配合 --against：每个目标的工作解释器对数（默认 4；新的解释器会落入不同的速度"
                                   "模式，各对之间的散布计入区间）"),
    # bisect
    "help.bisect": ("find the first commit that made a target slower, code against code",
                    "找出让目标变慢的第一个提交，代码对代码"),
    "help.bisect.description": (
        "GOOD is a commit where TARGET (a statement or module:function) was fast, BAD a later one where it is "
        "slow. Each step compares the midpoint against both ends, each in its own git worktree and pairs of fresh "
        "worker interpreters, rounds interleaved, and goes to the half whose pairs rank slower (a worker that "
        "lands in another speed mode moves one rank, not the answer); a step the ranks cannot decide gets more "
        "pairs. The checkout must have no uncommitted changes; every worktree is removed at the end and "
        "on Ctrl-C. --save keeps every comparison (with its commits) in the history. A benchmark of a pytest "
        "suite is bisected the same way: put `-- pytest FILE -k NAME` after BAD (the arguments must select one "
        "test that uses the measure or benchmark fixture).",
        "GOOD 是 TARGET（一条语句或 module:function）还快的一个提交，BAD 是之后它变慢的一个提交。每一步都把"
        "中点与两端比较，各自在自己的 git worktree 和成对的新工作解释器中运行，各轮交错，然后进入排名更慢的那"
        "一半（落入另一种速度模式的工作解释器只会移动一个名次，不会改变答案）；排名无法判定的一步会增加工作"
        "解释器对。检出目录不能有未提交的改动；每个 worktree 都会在结束时以及按下 Ctrl-C 时被删除。--save 把每次"
        "比较（连同其提交）保存到历史中。pytest 套件中的基准测试也以同样的方式二分：在 BAD 之后写 "
        "`-- pytest FILE -k NAME`（这些参数必须恰好选中一个使用 measure 或 benchmark fixture 的测试）。"),
    "help.bisect.good": ("a commit, branch or tag where the target was fast", "目标还快的一个提交、分支或标签"),
    "help.bisect.bad": ("a later commit where it is slow", "之后目标变慢的一个提交"),
    "help.bisect.target": ("a statement or module:function (a file.py:function too); or, after --, a pytest command "
                           "line that selects one benchmark: -- pytest FILE -k NAME",
                           "一条语句或 module:function（也可以是 file.py:function）；或者在 -- 之后，给出选中一个"
                           "基准测试的 pytest 命令行：-- pytest FILE -k NAME"),
    "help.bisect.budget": ("seconds of measuring per comparison's first --against-pairs worker pairs, both sides "
                           "(default {default}; each pair measures BUDGET / N)",
                           "每次比较最初的 --against-pairs 个工作解释器对（两侧合计）的测量秒数（默认 {default}；"
                           "每对测量 BUDGET / N 秒）"),
    "help.bisect.against_pairs": ("worker pairs of each step's comparisons at the first look (default 4; GOOD "
                                  "against BAD starts with 6); 2 more per look while a step's ranks cannot decide, "
                                  "up to 20 (30 for GOOD against BAD)",
                                  "每一步的比较在第一次查看时的工作解释器对数（默认 4；GOOD 对 BAD 从 6 对开始）；"
                                  "只要这一步的排名无法判定，每次查看再加 2 对，最多 20 对（GOOD 对 BAD 为 30 对）"),
}
