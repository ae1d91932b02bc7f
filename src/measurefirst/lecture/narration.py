"""The lecture's words, in English and Chinese (the lecture's language), a table of the one format of
:data:`measurefirst.render.words.Words`. Numbers are filled in live."""

from __future__ import annotations

from ..render.words import LANGS, Words, text

TEXT: Words = {
    "title": ("measurefirst: measure first, then optimize — the lecture, live on {device}",
              "measurefirst：先测量，再优化 —— 讲座演示，实时运行于 {device}"),
    "pitfalls.title": ("Part 1. The two timing traps", "第一部分：两个计时陷阱"),
    "pitfalls.trap1": ("Trap 1 — no warm-up. The first call of a {n}x{n} matrix product pays one-time costs "
                       "(allocation, thread start-up, library initialisation, algorithm selection).",
                       "陷阱一：没有预热。{n}x{n} 矩阵乘法的第一次调用要付出一次性开销（内存分配、线程启动、库初始化、算法选择）。"),
    "pitfalls.trap1.result": ("cold first call: {cold}; warm steady state: {warm} (median; 95% interval {ci}).",
                              "冷启动的第一次调用：{cold}；预热后的稳定时间：{warm}（中位数；95% 区间 {ci}）。"),
    "ci.run_to_run": ("{rel} run to run, of which this run's precision ±{prec}", "运行间 {rel}，其中本次运行的精度 ±{prec}"),
    "ci.precision": ("{rel}, this run's precision only (run to run not measured)", "{rel}，仅本次运行的精度（未测量运行间离散）"),
    "ci.na": ("n/a", "不可用"),
    # the scaling table's interval column names its kind; a mixed column marks this run's precision with *
    "pm.run_to_run": ("± run to run", "± 运行间"),
    "pm.precision": ("± this run", "± 本次精度"),
    "pm.mixed": ("± run to run*", "± 运行间*"),
    "pm.mixed.note": ("* this run's precision only (run to run not measured for that size)", "* 仅本次运行的精度（该规模未测量运行间离散）"),
    "pitfalls.trap1.lesson": ("Lesson: always warm up before you start the clock. measurefirst.benchmark warms up "
                              "until the time stops falling (or a cap is reached, which it reports).",
                              "结论：开始计时之前一定要先预热。measurefirst.benchmark 会一直预热，直到每次调用的时间不再下降（或达到上限，并如实报告）。"),
    "pitfalls.implicit": ("Note — implicit synchronizations: .item(), print(tensor), .cpu() and data-dependent "
                          "shapes (nonzero, boolean masks) make the CPU wait for the GPU. One per training step can "
                          "idle the GPU; `measurefirst doctor` finds them and names the source line.",
                          "注意：隐式同步。.item()、print(tensor)、.cpu() 以及依赖数据的形状（nonzero、布尔掩码）都会让 CPU 等待 GPU。每个训练步一次，就可能让 "
                          "GPU 空转；`measurefirst doctor` 能找到它们并指出源代码行。"),
    "scaling.title": ("Part 2. How time scales with size", "第二部分：时间如何随规模增长"),
    "scaling.intro": ("A matrix product of n x n matrices does 2n³ FLOPs. Measured, with the time relative to "
                      "n={ref} and the ratio that n³ predicts:",
                      "n x n 矩阵乘法需要 2n³ 次浮点运算。下面是实测结果，以及相对于 n={ref} 的时间比和 n³ 预测的比值："),
    "profiler.title": ("Part 3. What a profiler reveals", "第三部分：性能分析器揭示了什么"),
    "profiler.intro": ("A hand-written tanh-GeLU against the fused F.gelu, on {numel} elements:",
                       "手写的 tanh-GeLU 与融合的 F.gelu 对比，{numel} 个元素："),
    "profiler.gap.over": ("Why the profile and the timing differ: the profiler's ops add up to {pt} per call for the "
                          "{what}, {ratio:.1f}x the benchmark's {bt}. The profiler records every op it sees (a "
                          "timestamp, a name, the shapes), and on many small ops that recording costs more than the "
                          "ops themselves. Quote the benchmark's number; read the profile for where the time goes, "
                          "not for how long.",
                          "为什么分析结果与计时不一致：{what}的各运算在性能分析器里每次调用合计 {pt}，是基准测试 {bt} 的 {ratio:.1f} 倍。"
                          "性能分析器要记录它看到的每个运算（时间戳、名字、形状），在许多小运算上，这种记录本身比运算还贵。请引用基准测试的数字；性能分析用来看时间花在哪里，而不是花了多久。"),
    "profiler.gap.over.few": ("Why the profile and the timing differ: the profiler's ops add up to {pt} per call for the "
                              "{what}, {ratio:.1f}x the benchmark's {bt}. The profiler records every op it sees (a "
                              "timestamp, a name, the shapes); here {ops} op per call does the work, and on an op "
                              "this short that recording costs more than the op itself. Quote the benchmark's "
                              "number; read the profile for where the time goes, not for how long.",
                              "为什么分析结果与计时不一致：{what}的各运算在性能分析器里每次调用合计 {pt}，是基准测试 {bt} 的 "
                              "{ratio:.1f} 倍。性能分析器要记录它看到的每个运算（时间戳、名字、形状）；这里每次调用只有 {ops} "
                              "个运算在做计算，对这么短的运算，这种记录本身比运算还贵。请引用基准测试的数字；性能分析用来看时间花在哪里，而不是花了多久。"),
    "profiler.gap.under": ("Why the profile and the timing differ: the profiler's ops add up to only {pt} per call "
                           "for the {what}, {ratio:.2f}x the benchmark's {bt}. The profile counts time inside ops "
                           "only (on a GPU, only the CPU's launch of each kernel); Python between the ops and "
                           "waiting for the device are not in it. Quote the benchmark's number; read the profile for "
                           "where the time goes, not for how long.",
                           "为什么分析结果与计时不一致：{what}的各运算在性能分析器里每次调用合计只有 {pt}，是基准测试 {bt} 的 {ratio:.2f} 倍。"
                           "性能分析只统计运算内部的时间（在 GPU 上只有 CPU 发起核函数的时间）；运算之间的 Python 和等待设备的时间都不在其中。请引用基准测试的数字；"
                           "性能分析用来看时间花在哪里，而不是花了多久。"),
    "profiler.bytes": ("Each of the manual ops reads and writes the whole tensor: about {mb} MB of memory traffic "
                       "per call against {fmb} MB for the fused op.",
                       "手写版的每个运算都要读写整个张量：每次调用约 {mb} MB 内存流量，融合版约 {fmb} MB。"),
    "profiler.nsight": ("For a timeline of a whole program use Nsight Systems (nsys profile -t cuda,nvtx python "
                        "train.py); wrap phases in `with measurefirst.range(\"forward\"):` and they appear there as "
                        "NVTX ranges, and in measurefirst's own profiles as record_function ranges.",
                        "要看整个程序的时间线，请使用 Nsight Systems（nsys profile -t cuda,nvtx python train.py）；用 `with "
                        "measurefirst.range(\"forward\"):` 包住各个阶段，它们会在 Nsight 中显示为 NVTX 区间，也会作为 record_function "
                        "区间出现在 measurefirst 的分析结果中。"),
    "ops": ("ops", "个运算"),
    "kernels": ("kernels", "个核函数"),
    "done": ("Measure first, then optimize.", "先测量，再优化。"),
    "compile.title": ("Part 6. Compiled code: the first call is the compiler", "第六部分：编译后的代码——第一次调用就是编译器"),
    "compile.intro": ("Today the biggest one-time cost is torch.compile. The hand-written tanh-GeLU on {numel} elements, "
                      "compiled: its first call traces it, generates code and builds it. measurefirst reads torch's own "
                      "account of what it compiled and keeps that call apart from the samples and the budget. The "
                      "three versions, interleaved:",
                      "如今最大的一次性开销是 torch.compile。把 {numel} 个元素上手写的 tanh-GeLU 编译：它的第一次调用会追踪代码、"
                      "生成代码并构建。measurefirst 读取 torch 自己记录的编译信息，把这次调用与样本和预算分开。三个版本交替测量："),
    "compile.first": ("first call: {graphs} graph(s) compiled in {seconds} s, inductor's cache {cache}; the compiled "
                      "call after that: {steady}.",
                      "第一次调用：编译了 {graphs} 个图，用时 {seconds} 秒，inductor 缓存{cache}；此后编译版本每次调用：{steady}。"),
    "compile.first.none": ("first call: nothing compiled (the compiled code was already there); the compiled call: "
                           "{steady}.",
                           "第一次调用：没有编译（编译好的代码已经存在）；编译版本每次调用：{steady}。"),
    "compile.label": ("compiled GeLU", "编译版 GeLU"),
    "compile.cache.cold": ("cold (a first compile: code generated and built)", "为冷（首次编译：生成并构建代码）"),
    "compile.cache.warm": ("warm (the code was loaded, not built)", "为热（代码直接加载，无需构建）"),
    "compile.cache.mixed": ("partly warm", "部分命中"),
    "compile.cache.none": ("not consulted", "未被查询"),
    "compile.times": ("hand-written {manual}, F.gelu {fused}; {verdict}.", "手写版 {manual}，F.gelu {fused}；{verdict}。"),
    "compile.faster": ("the compiled one is {x:.2f}x as fast as the hand-written one (speed-up 95% CI {lo:.2f}–{hi:.2f})",
                       "编译版本的速度是手写版本的 {x:.2f} 倍（加速比 95% 置信区间 {lo:.2f}–{hi:.2f}）"),
    "compile.slower": ("the compiled one takes {x:.2f}x as long as the hand-written one (time ratio 95% CI "
                       "{lo:.3f}–{hi:.3f})",
                       "编译版本的耗时是手写版本的 {x:.2f} 倍（时间比 95% 置信区间 {lo:.3f}–{hi:.3f}）"),
    "compile.same": ("no difference detected between the compiled and the hand-written one",
                     "编译版本与手写版本之间没有检测到差异"),
    "compile.undecided": ("undecided between the compiled and the hand-written one after {rounds} round(s)",
                          "经过 {rounds} 轮，仍无法判断编译版本与手写版本孰快孰慢"),
    "compile.pays": ("At this size, compiling pays for itself after about {calls} calls (the compile time over the time "
                     "saved per call).",
                     "在这个规模下，大约 {calls} 次调用之后编译才回本（编译时间除以每次调用节省的时间）。"),
    "compile.never": ("Compiled, it is not faster here: at this size the compile never pays for itself.",
                      "编译后在这里并不更快：在这个规模下，编译永远不会回本。"),
    "compile.shape": ("A new shape ({n} elements) compiled again: {seconds} s, because a guard failed: {reason}.",
                      "新的形状（{n} 个元素）又编译了一次：{seconds} 秒，因为守卫条件失败：{reason}。"),
    "compile.shape.none": ("A new shape ({n} elements) did not compile again here.",
                           "新的形状（{n} 个元素）在这里没有再次编译。"),
    "compile.lesson": ("Lesson: the first call of a compiled function is the compiler, and warm-up absorbs it only for "
                       "the shapes it saw. Time eager and compiled interleaved (measurefirst compare --compile), count "
                       "the calls until the compile pays off, and let `measurefirst doctor` name the graph breaks.",
                       "结论：编译后函数的第一次调用就是编译器，预热只能吸收它见过的形状的编译。把 eager 与编译版本交替计时"
                       "（measurefirst compare --compile），算一算多少次调用后编译才回本，并用 `measurefirst doctor` 找出图中断。"),
    # ---- part 1, chosen from the data ------------------------------------------------------
    "pitfalls.trap1.settled": ("Warm-up settled: per-call time stopped falling after {calls} warm-up call(s).",
                               "预热已稳定：预热 {calls} 次后，每次调用的时间不再下降。"),
    "pitfalls.trap1.capped": ("Warm-up did NOT settle: it stopped at its cap after {calls} call(s) while the time "
                              "was still moving, so the steady figure above is less trustworthy.",
                              "预热没有稳定：预热到上限（{calls} 次）时每次调用的时间仍在变化，所以上面的稳定时间不太可信。"),
    "pitfalls.trap1.big": ("The first call was {ratio:.1f}x slower than a warm call: timing it would mislead you.",
                           "第一次调用的用时是预热后的 {ratio:.1f} 倍：把它计入计时会误导你。"),
    "pitfalls.trap1.small": ("Here the first call was only {ratio:.2f}x a warm call: on {device} the one-time costs "
                             "of this product are small. On a GPU (CUDA context, cuBLAS handle, algorithm choice) "
                             "they are often 10-1000x.",
                             "这里第一次调用的用时只是预热后的 {ratio:.2f} 倍：在 {device} 上这次矩阵乘法的一次性开销很小。在 GPU 上（CUDA 上下文、cuBLAS 句柄、"
                             "算法选择）常常是 10 到 1000 倍。"),
    "pitfalls.trap1.inverted": ("! The first call took only {ratio:.2f}x a warm call: a cold call cannot be cheaper "
                                "than a warm one, so this machine disturbed the measurement{preempted}. It is not a "
                                "lesson about one-time costs; re-run on a quieter machine.",
                                "! 第一次调用的用时只是预热后的 {ratio:.2f} 倍：冷启动的调用不可能比预热后的更快，说明这台机器干扰了测量{preempted}。"
                                "这不能说明一次性开销的大小；请在更安静的机器上重新运行。"),
    "pitfalls.trap1.preempted": (" ({k} of its {n} samples were preempted by the OS)", "（{n} 个样本中有 {k} 个被操作系统抢占）"),
    "pitfalls.trap2.inverted": ("! Trap 2 — no synchronization. The unsynchronized timer read {naive}, the "
                                "synchronized one {truth} ({ratio:.2f}x): a synchronized time cannot be shorter than "
                                "the launch alone, so this machine disturbed the measurement; re-run on a quieter "
                                "machine.",
                                "! 陷阱二：没有同步。不同步的计时器读到 {naive}，同步后读到 {truth}（{ratio:.2f} 倍）：同步后的时间不可能比单纯的启动时间还短，"
                                "说明这台机器干扰了测量；请在更安静的机器上重新运行。"),
    "pitfalls.trap2.gpu": ("Trap 2 — no synchronization. GPU calls return as soon as the kernels are queued. A timer "
                           "without torch.cuda.synchronize() read {naive}; the synchronized truth is {truth}, "
                           "{ratio:.1f}x the unsynchronized reading.",
                           "陷阱二：没有同步。GPU 调用在核函数进入队列后立即返回。不调用 torch.cuda.synchronize() 的计时器读到 {naive}；同步后的真实时间是 "
                           "{truth}，是不同步读数的 {ratio:.1f} 倍。"),
    "pitfalls.trap2.cpu": ("Trap 2 — no synchronization. On a GPU, PyTorch is asynchronous: `a @ b` only queues the "
                           "kernel and Python returns at once, so the CPU runs ahead of the GPU. A clock stopped "
                           "without torch.cuda.synchronize() measures the launch (microseconds), not the product — "
                           "often hundreds of times too short. Here on {device} the ops run synchronously, so both "
                           "readings agree; run `measurefirst demo pitfalls --device cuda` on a GPU machine to see "
                           "the unsynchronized figure.",
                           "陷阱二：没有同步。在 GPU 上 PyTorch 是异步执行的：`a @ b` 只是把核函数放进队列，Python 立即返回，CPU 会跑在 GPU 前面。不调用 "
                           "torch.cuda.synchronize() 就停表，测到的只是启动时间（微秒级），而不是矩阵乘法本身，常常短了几百倍。这里在 {device} 上运算是同步执行的，"
                           "两种读数一致；请在 GPU 机器上运行 `measurefirst demo pitfalls --device cuda` 查看不同步的读数。"),
    "pitfalls.rules": ("Both rules, together: warm up before you start the clock, AND synchronize before you stop "
                       "it. Forget either one and the number is wrong. measurefirst.benchmark does both.",
                       "两条规则要同时遵守：开始计时之前先预热，停止计时之前先同步。忘了任何一条，测出的数字都是错的。measurefirst.benchmark 两条都会做。"),
    "pitfalls.logging": ("The same trap in training: printing the loss every step (print(loss.item())) synchronizes "
                         "every step, so the CPU can no longer queue work ahead and the GPU idles between steps. Log "
                         "every N steps (e.g. every 100) instead.",
                         "训练中的同一个陷阱：每一步都打印损失（print(loss.item())）会让每一步都同步，CPU 无法提前排队后续工作，GPU 在步与步之间空转。请改为每 N 步（例如每 "
                         "100 步）记录一次。"),
    # ---- marks and the machine's disturbance -------------------------------------------------
    "marked": ("! {what}: read with care — {why}.", "! {what}：此数字需谨慎看待 —— {why}。"),
    "disturbed": ("The machine disturbed the numbers marked ! (other programs, thread contention, clock changes). "
                  "Fix: fewer threads (OMP_NUM_THREADS=1 or torch.set_num_threads) or a quieter machine.",
                  "标有 ! 的数字受到了机器的干扰（其他程序、线程争用、时钟频率变化）。解决办法：减少线程数（OMP_NUM_THREADS=1 或 torch.set_num_threads），"
                  "或换一台更安静的机器。"),
    "advice.quick": ("This was the quick lecture: a larger budget steadies the numbers marked or left undecided "
                     "above; run it without --quick.",
                     "这是快速版讲座：更多的时间预算能让上面标出或无法判定的数字更稳定；请去掉 --quick 重新运行。"),
    "issue.preempted": ("{k} of {n} samples preempted by the OS and set aside", "{n} 个样本中有 {k} 个被操作系统抢占，已剔除"),
    "issue.preempted_kept": ("{k} of {n} samples preempted by the OS (too many to set aside)",
                             "{n} 个样本中有 {k} 个被操作系统抢占（太多，无法剔除）"),
    # ---- part 2 ----------------------------------------------------------------------------
    "scaling.columns": ("n|time|{pm}|time / t(n={ref})|n³ ratio|GFLOP/s|of best",
                        "n|时间|{pm}|时间 / t(n={ref})|n³ 比值|GFLOP/s|占最佳"),
    "scaling.failed": ("n={n}: the measurement failed.", "n={n}：测量失败。"),
    "scaling.cross": ("the work term overtakes the overhead from n ≈ {n}", "从 n ≈ {n} 开始，计算量超过固定开销"),
    "scaling.nocross": ("within the measured sizes the work term never overtakes the overhead",
                        "在测量的规模范围内，计算量始终没有超过固定开销"),
    "scaling.fit": ("Fitted cost model t(n) = t0 + c·n^k: fixed overhead t0 = {t0}, exponent k = {k:.2f} (95% CI "
                    "{klo:.2f}–{khi:.2f}, from how the sizes scatter about the fit); {cross}.",
                    "拟合的代价模型 t(n) = t0 + c·n^k：固定开销 t0 = {t0}，指数 k = {k:.2f}（95% 置信区间 {klo:.2f}–{khi:.2f}，"
                    "由各规模点围绕拟合的离散得出）；{cross}。"),
    "scaling.nofit": ("No cost-model fit: too few sizes were measured cleanly.", "无法拟合代价模型：成功测量的规模点太少。"),
    "scaling.edge": ("! The exponent sits at the edge of the searched range (k = {k:.2f}): the times do not follow "
                     "one power law, so the fit says nothing here.",
                     "! 指数落在搜索范围的边界上（k = {k:.2f}）：这些时间不服从单一幂律，这次拟合说明不了问题。"),
    "scaling.poor": ("! A poor fit (the points stray by {rms:.0%} from the model, the fit's 95% CI of k "
                     "{klo:.2f}–{khi:.2f}): the times do not follow one power law, so do not read k as the law.",
                     "! 拟合很差（各点偏离模型 {rms:.0%}，拟合给出的 k 的 95% 置信区间 {klo:.2f}–{khi:.2f}）：这些时间不服从单一幂律，不要把 k 当成规律。"),
    "scaling.share": ("At n={n} the product reaches only {share} of the best rate measured here ({best} GFLOP/s): "
                      "the hardware is far from fed, and the fixed overhead (t0 = {t0}, {frac} of this size's time) "
                      "is what you pay for.",
                      "在 n={n} 时，矩阵乘法只达到本次测得最佳速率（{best} GFLOP/s）的 {share}：硬件远没有被喂饱，"
                      "你付出的主要是固定开销（t0 = {t0}，占这个规模耗时的 {frac}）。"),
    "scaling.share.nofit": ("At n={n} the product reaches only {share} of the best rate measured here ({best} GFLOP/s): "
                            "the hardware is far from fed.",
                            "在 n={n} 时，矩阵乘法只达到本次测得最佳速率（{best} GFLOP/s）的 {share}：硬件远没有被喂饱。"),
    "scaling.share.other": ("At n={n} the product reaches only {share} of the best rate measured here ({best} GFLOP/s), "
                            "and the fitted fixed overhead (t0 = {t0}) is only {frac} of its time: something else "
                            "slowed this size (the machine, or caches), not the overhead.",
                            "在 n={n} 时，矩阵乘法只达到本次测得最佳速率（{best} GFLOP/s）的 {share}，而拟合的固定开销"
                            "（t0 = {t0}）只占它耗时的 {frac}：拖慢这个规模的是别的东西（机器或缓存），而不是固定开销。"),
    "scaling.lesson.cubic": ("Lesson: k = {k:.2f}, close to 3: at large sizes time follows the work, n³. At small "
                             "sizes a fixed overhead (Python dispatch, kernel launch) dominates. Optimize the part "
                             "that dominates at your size.",
                             "结论：k = {k:.2f}，接近 3：规模大时时间随计算量（n³）增长；规模小时固定开销（Python 调度、核函数启动）占主导。请针对你的规模下占主导的部分做优化。"),
    "scaling.lesson.below": ("Lesson: k = {k:.2f}, below 3: over these sizes time grows more slowly than the work "
                             "(n³), because the fixed overhead and the under-fed hardware at small n still hide part "
                             "of it. The law shows at larger sizes: overhead dominates when small, the work when "
                             "large.",
                             "结论：k = {k:.2f}，小于 3：在这些规模上时间的增长慢于计算量（n³），因为小规模时的固定开销和没被喂饱的硬件还掩盖了一部分计算。更大的规模才能看到规律："
                             "规模小时开销占主导，规模大时计算量占主导。"),
    "scaling.lesson.above": ("Lesson: k = {k:.2f}, above 3: time grows faster than the work, so something besides "
                             "the FLOPs got worse with size (the matrices outgrew the caches, or the machine "
                             "disturbed the largest sizes).",
                             "结论：k = {k:.2f}，大于 3：时间的增长快于计算量，说明除了浮点运算之外还有别的东西随规模变差了（矩阵超出了缓存，或机器干扰了最大的几个规模）。"),
    "scaling.lesson.unknown": ("Lesson (from the lecture, not from this run): at small sizes a fixed overhead "
                               "dominates; at large sizes time follows the work (n³ for a matrix product). This run "
                               "cannot show it; rerun on a quieter machine.",
                               "结论（来自讲座，而非本次运行）：规模小时固定开销占主导；规模大时时间随计算量增长（矩阵乘法是 n³）。本次运行无法说明这一点；请在更安静的机器上重新运行。"),
    # ---- part 3 ----------------------------------------------------------------------------
    "profiler.table": ("The profiler's op table (work view: ops that do the work, sorted by self time, per call):",
                       "性能分析器的运算表（工作视图：真正做计算的运算，按自身时间排序，每次调用）："),
    "profiler.table.columns": ("op|calls|self time|share|bytes", "运算|调用次数|自身时间|占比|字节数"),
    "profiler.table.manual": ("manual GeLU", "手写 GeLU"),
    "profiler.table.fused": ("fused F.gelu", "融合 F.gelu"),
    "profiler.full": ("The full view of the manual GeLU (every op the profiler saw, wrappers included):",
                      "手写 GeLU 的完整视图（性能分析器看到的每个运算，包括外层包装）："),
    "profiler.to_rows": ("The aten::to / aten::_to_copy rows ({calls} per call, {time} in all) are conversions of "
                         "the Python scalar constants (0.5, 0.044715, ...) into tensors: cheap, not where the time "
                         "goes.",
                         "aten::to / aten::_to_copy 这几行（每次调用 {calls} 次，共 {time}）是把 Python 标量常数（0.5、0.044715……）"
                         "转换成张量：开销很小，时间不花在这里。"),
    "profiler.to_rows.costly": ("The aten::to / aten::_to_copy rows ({calls} per call, {time} in all, {share} of the "
                                "op time) are conversions of the Python scalar constants (0.5, 0.044715, ...) into "
                                "tensors. They should be cheap; here they are not, so the machine disturbed them or "
                                "the tensor is tiny.",
                                "aten::to / aten::_to_copy 这几行（每次调用 {calls} 次，共 {time}，占运算时间的 {share}）是把 Python "
                                "标量常数（0.5、0.044715……）转换成张量。它们本应开销很小；这里却不小，说明机器干扰了它们，或者张量很小。"),
    "profiler.no_to_rows": ("No aten::to / aten::_to_copy rows here: this PyTorch build folds the scalar constants "
                            "(0.5, 0.044715, ...) without a conversion op. Where they appear, they are that cheap "
                            "conversion.",
                            "这里没有 aten::to / aten::_to_copy 行：这个版本的 PyTorch 直接处理标量常数（0.5、0.044715……），不需要转换运算。"
                            "若出现这些行，它们就是这种开销很小的转换。"),
    "profiler.counts": ("manual: {manual} {unit} per call; fused: {fused}.",
                        "手写版：每次调用 {manual} {unit}；融合版：{fused} {unit}。"),
    "profiler.time": ("time: manual {mt}, fused {ft} — {verdict}.", "时间：手写版 {mt}，融合版 {ft} —— {verdict}。"),
    "verdict.faster.x": ("fused is {x:.2f}x as fast as manual (interleaved comparison, speed-up 95% CI "
                         "{lo:.2f}–{hi:.2f}, this run's precision)",
                         "融合版的速度是手写版的 {x:.2f} 倍（交错对比，加速比的 95% 置信区间 {lo:.2f}–{hi:.2f}，本次运行的精度）"),
    "verdict.faster.pct": ("fused is {p:.1f}% faster than manual (interleaved comparison, speed-up 95% CI "
                           "{lo:.3f}–{hi:.3f}, this run's precision)",
                           "融合版比手写版快 {p:.1f}%（交错对比，加速比的 95% 置信区间 {lo:.3f}–{hi:.3f}，本次运行的精度）"),
    "verdict.slower.x": ("fused takes {x:.2f}x as long as manual (interleaved comparison, time ratio 95% CI "
                         "{lo:.3f}–{hi:.3f}, this run's precision)",
                         "融合版的用时是手写版的 {x:.2f} 倍（交错对比，时间比的 95% 置信区间 {lo:.3f}–{hi:.3f}，本次运行的精度）"),
    "verdict.slower.pct": ("fused is {p:.1f}% slower than manual (interleaved comparison, time ratio 95% CI "
                           "{lo:.3f}–{hi:.3f}, this run's precision)",
                           "融合版比手写版慢 {p:.1f}%（交错对比，时间比的 95% 置信区间 {lo:.3f}–{hi:.3f}，本次运行的精度）"),
    "verdict.same": ("no difference detected between fused and manual (this comparison could have detected ±{d:.1%}, "
                     "this run's precision)",
                     "没有检测到融合版与手写版之间的差异（本次对比能分辨 ±{d:.1%} 的差异，本次运行的精度）"),
    "verdict.contradicts": ("undecided: the verdict ({verdict}) contradicts the measured time ratio ({r:.3f})",
                            "无法判定：判定结果（{verdict}）与实测的时间比（{r:.3f}）相互矛盾"),
    "verdict.nodetect": ("undecided: no difference was found, but this comparison cannot say how small a difference "
                         "it could have detected",
                         "无法判定：没有发现差异，但本次对比说不出它能分辨多小的差异"),
    "verdict.undecided": ("undecided: {rounds} round(s), too few independent ones for a 95% CI (rounds that share a "
                          "stretch of machine load count as one)",
                          "无法判定：{rounds} 轮测量中相互独立的太少，不足以给出 95% 置信区间（处于同一段机器负载中的几轮只算一轮）"),
    "verdict.undecided.drift": ("undecided: over {rounds} round(s) the ratio moved with the machine's load (parts of "
                                "the run point opposite ways)",
                                "无法判定：{rounds} 轮中时间比随机器负载变化（运行的不同部分指向相反方向）"),
    "profiler.lesson.faster": ("Lesson: benchmarking says how long; profiling says where. Fusing {manual} "
                               "memory-bound {unit} into {fused} (fewer passes over memory) is where this speed-up "
                               "comes from.",
                               "结论：基准测试告诉你花了多久，性能分析告诉你时间花在哪里。把 {manual} {unit}（受内存带宽限制）融合成 {fused} {unit}（更少的内存遍历），"
                               "正是这次加速的来源。"),
    "profiler.lesson.same": ("Lesson: the profile shows {manual} {unit} against {fused}, yet this run measured no "
                             "difference: at this size on {device} the data stays in cache and the extra passes cost "
                             "little (or the machine's noise hides them). Benchmarking says how long, profiling says "
                             "where; believe the measurement. On a GPU, where each op is a kernel launch and a pass "
                             "over memory, fusion usually wins.",
                             "结论：性能分析显示 {manual} {unit}对 {fused} {unit}，但本次没有测出差异：在 {device} 上这个规模的数据留在缓存里，"
                             "多出的内存遍历代价很小（或被机器的噪声掩盖）。基准测试告诉你花了多久，性能分析告诉你时间花在哪里；请相信测量结果。在 GPU 上，"
                             "每个运算都是一次核函数启动和一次内存遍历，融合通常会胜出。"),
    "profiler.lesson.slower": ("Lesson: fewer ops did not mean less time here — the fused op was slower on {device}. "
                               "The op count is a hint, not a verdict: only a measurement says which is faster on "
                               "your machine.",
                               "结论：运算更少并不意味着用时更短 —— 在 {device} 上融合版反而更慢。运算数量只是线索，不是结论：只有测量才能告诉你在你的机器上哪个更快。"),
    "profiler.lesson.undecided": ("Lesson: this run cannot say which is faster; rerun the comparison on a quieter "
                                  "machine.",
                                  "结论：本次运行无法判断哪个更快；请在更安静的机器上重新运行这次对比。"),
    "profiler.kernels": ("Kernels launched on the GPU, decoded (launching op, library, architecture, dtype, tile):",
                         "GPU 上启动的核函数（已解码：发起的运算、库、架构、数据类型、分块）："),
    "profiler.kernels.columns": ("calls|launched by|library|arch (GPU)|dtype|tile|time|kernel",
                                 "次数|发起运算|库|架构（GPU）|数据类型|分块|时间|核函数"),
    "profiler.gemm": ("The matrix product's kernels, profiled live:", "实时分析矩阵乘法的核函数："),
    # ---- part 5 ----------------------------------------------------------------------------
    "mlp.title": ("Part 5. A training step, phase by phase", "第五部分：一个训练步，逐阶段分解"),
    "mlp.intro": ("A small MLP ({d} -> {h} -> {d}, batch {b}) trained with SGD: measurefirst.benchmark_step times "
                  "each phase of the step, {steps} steps after warm-up:",
                  "一个小型 MLP（{d} -> {h} -> {d}，批大小 {b}），用 SGD 训练：measurefirst.benchmark_step 在预热之后逐阶段计时 {steps} 步："),
    "mlp.columns": ("phase|time|share", "阶段|时间|占比"),
    "mlp.phase.data": ("data", "数据"),
    "mlp.phase.forward": ("forward", "前向"),
    "mlp.phase.backward": ("backward", "反向"),
    "mlp.phase.optimizer": ("optimizer", "优化器"),
    "mlp.step": ("whole step: {t}", "整个训练步：{t}"),
    "mlp.step.sum": ("whole step: {t} (the median of whole steps; the phases' medians above add up to {sum}, the "
                     "total their shares are of: a median of sums is not a sum of medians)",
                     "整个训练步：{t}（整步用时的中位数；上面各阶段的中位数合计 {sum}，占比以此为分母：和的中位数不等于中位数的和）"),
    "mlp.dominant": ("The {phase} phase takes the most time ({share} of the step).", "{phase}阶段用时最多（占训练步的 {share}）。"),
    "mlp.ratio.usual": ("Backward took {r:.1f}x the forward: close to the rule of thumb of about 2x (it computes "
                        "gradients for both the inputs and the weights).",
                        "反向用时是前向的 {r:.1f} 倍：接近约 2 倍的经验法则（它要同时计算输入和权重的梯度）。"),
    "mlp.ratio.unusual": ("Backward took {r:.1f}x the forward, far from the usual 2x: at this size fixed overheads "
                          "(autograd bookkeeping, dispatch) or the machine's noise decide more than the FLOPs.",
                          "反向用时是前向的 {r:.1f} 倍，与通常的 2 倍相差甚远：在这个规模上，固定开销（autograd 记账、调度）或机器的噪声比浮点运算量更能决定用时。"),
    "mlp.ratio.inverted": ("! Backward took only {r:.2f}x the forward: it does about twice the forward's work, so a "
                           "backward faster than the forward means this machine disturbed the measurement; re-run on "
                           "a quieter machine.",
                           "! 反向用时只是前向的 {r:.2f} 倍：反向的计算量约为前向的两倍，反向比前向还快说明这台机器干扰了测量；请在更安静的机器上重新运行。"),
    "mlp.profile": ("Where the step's time goes, op by op (the profiler's work view, top {n}):",
                    "训练步的时间花在哪里，逐个运算（性能分析器的工作视图，前 {n} 个）："),
    "mlp.lesson": ("Lesson: time the step phase by phase before optimizing it; the profile then says which ops "
                   "inside the dominant phase to attack (here the op with the most self time: {top}, {share}).",
                   "结论：优化训练步之前，先逐阶段计时；再用性能分析找出占主导的阶段里该优化哪些运算（这里自身时间最多的运算是 {top}，占 {share}）。"),
    # ---- part 4 ----------------------------------------------------------------------------
    "kernels.title": ("Part 4. Reading kernel names", "第四部分：读懂核函数的名字"),
    "kernels.intro": ("On a GPU the profiler lists kernels by name, and the name says what ran. The lecture's "
                      "example:",
                      "在 GPU 上，性能分析器按名字列出核函数，而名字说明了实际运行的是什么。讲座中的例子："),
    "kernels.library": ("library: {v} (the template library cuBLAS builds on)", "库：{v}（cuBLAS 所依赖的模板库）"),
    "kernels.arch": ("architecture: {v} = {family}", "架构：{v} = {family}"),
    "kernels.op": ("operation: {v} ({cores})", "运算：{v}（{cores}）"),
    "kernels.simt": ("SIMT: ordinary CUDA cores, no tensor cores", "SIMT：普通 CUDA 核心，不用张量核心"),
    "kernels.tensorop": ("tensor cores", "张量核心"),
    "kernels.dtype": ("data type: {v} (the s in sgemm: single precision)", "数据类型：{v}（sgemm 中的 s：单精度）"),
    "kernels.tile": ("tile: {v} (each thread block computes a {m}x{n} block of the output, {k} deep per step)",
                     "分块：{v}（每个线程块计算输出中 {m}x{n} 的一块，每步沿 K 方向取 {k}）"),
    "kernels.families": ("Architectures: {table}.", "架构对照：{table}。"),
    "kernels.cpu": ("No GPU here, so no live kernel names; on a GPU `measurefirst demo profiler --device cuda` "
                    "decodes the kernels of the GeLU and of a matrix product the same way.",
                    "这里没有 GPU，所以没有实时的核函数名字；在 GPU 上运行 `measurefirst demo profiler --device cuda`，会用同样的方法解码 GeLU "
                    "和矩阵乘法的核函数。"),
    "kernels.lesson": ("Lesson: a kernel name tells you which library, which GPU generation, which precision and "
                       "whether tensor cores ran. An fp32 SIMT kernel on a GPU with tensor cores is a hint: try bf16 "
                       "or TF32.",
                       "结论：核函数的名字告诉你用了哪个库、哪一代 GPU、什么精度、是否用了张量核心。在有张量核心的 GPU 上看到 fp32 SIMT 核函数是一个提示：试试 bf16 或 TF32。"),
}


def say(key: str, lang: str, **values: object) -> str:
    if lang not in LANGS:
        raise ValueError(f"language must be one of {', '.join(LANGS)}; got {lang!r}")
    return text(TEXT, key, lang).format(**values)
