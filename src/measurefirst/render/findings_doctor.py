"""The words of the findings of ``measurefirst doctor``, in English and Chinese: each code's title, message, why
and fix. A table of the one format of :data:`measurefirst.render.words.Words`, merged into
:data:`measurefirst.render.findings.FINDING_WORDS`."""

from .words import Words

DOCTOR_FINDING_WORDS: Words = {
    # ---- doctor ---------------------------------------------------------------------------------
    "unsynchronized_timing.title": ("timing without synchronization", "未同步的计时"),
    "unsynchronized_timing.message": ("a timer without synchronization reads {unsynced_ns:ns}; the synchronized time "
                                      "is {synced_ns:ns} ({value:.1f}x longer)",
                                      "不同步的计时器读数为 {unsynced_ns:ns}；同步后的耗时为 {synced_ns:ns}（长 {value:.1f} 倍）"),
    "unsynchronized_timing.message.cpu": ("does not apply on the CPU: CPU ops run synchronously, so the clock stops "
                                          "after the work",
                                          "在 CPU 上不适用：CPU 运算是同步的，时钟在工作完成后才停止"),
    "unsynchronized_timing.why": ("GPU work is asynchronous: the call returns once its kernels are queued. Stopping "
                                  "the clock then times only the launch.",
                                  "GPU 运算是异步的：调用在内核排入队列后就返回。此时停止计时，只测到了启动开销，而不是实际工作。"),
    "unsynchronized_timing.why.cpu": ("On a GPU, ops only queue work and return at once; a timer that stops without "
                                      "torch.cuda.synchronize() measures the launch, not the work. Run doctor with "
                                      "--device cuda to see the ratio for this function.",
                                      "在 GPU 上，运算只是把工作排入队列并立即返回；不调用 torch.cuda.synchronize() 就停止的计时器测到的是启动，而不是工作。用 "
                                      "--device cuda 运行 doctor 可看到此函数的倍数。"),
    "unsynchronized_timing.fix": ("call torch.cuda.synchronize() before every clock read, or use CUDA events "
                                  "(measurefirst.benchmark does both)",
                                  "每次读取时钟前调用 torch.cuda.synchronize()，或使用 CUDA 事件（measurefirst.benchmark 两者都做）"),
    "unsynchronized_timing.fix.cpu": ("", ""),
    "implicit_syncs.title": ("implicit synchronizations", "隐式同步"),
    "implicit_syncs.message": ("{value:.0f} host-device synchronization(s) per call: {sites}",
                               "每次调用有 {value:.0f} 次主机-设备同步：{sites}"),
    "implicit_syncs.message.cpu": ("per call: {ops}; free on the CPU, but each is a host-device synchronization on a "
                                   "GPU",
                                   "每次调用：{ops}；在 CPU 上不花额外时间，但在 GPU 上每个都是一次主机-设备同步"),
    "implicit_syncs.why": ("Each .item(), .cpu(), print(tensor), nonzero() or data-dependent shape makes the CPU "
                           "wait for the GPU to drain its queue, so the GPU idles while Python catches up.",
                           "每个 .item()、.cpu()、print(tensor)、nonzero() 或依赖数据的形状都会让 CPU 等待 GPU 清空队列，于是 GPU 空等 Python。"),
    "implicit_syncs.why.cpu": ("On a GPU these ops make the CPU wait for all queued work. On the CPU they cost "
                               "nothing extra, which is why the habit goes unnoticed until the code moves to a GPU.",
                               "在 GPU 上这些运算让 CPU 等待所有排队的工作。在 CPU 上它们不花额外时间，所以这个习惯直到代码迁到 GPU 才被注意到。"),
    "implicit_syncs.fix": ("keep values on the device (accumulate losses as tensors, log every N steps), avoid "
                           "data-dependent shapes in the hot loop",
                           "把值留在设备上（损失累加为张量，每 N 步记录一次），热循环中避免依赖数据的形状"),
    "implicit_syncs.fix.cpu": ("keep values as tensors in the hot loop; read them out every N steps",
                               "热循环中把值保留为张量；每 N 步读出一次"),
    "many_tiny_ops.title": ("many tiny ops", "大量细小算子"),
    "many_tiny_ops.message": ("{value:.0f} ops per call, {per_op_ns:ns} each on average",
                              "每次调用 {value:.0f} 个算子，平均每个 {per_op_ns:ns}"),
    "many_tiny_ops.message.kernels": ("{value:.0f} kernels per call, {per_op_ns:ns} each on average",
                                      "每次调用 {value:.0f} 个内核，平均每个 {per_op_ns:ns}"),
    "many_tiny_ops.why": ("Every op pays a fixed dispatch (and on a GPU, launch) cost of several microseconds; with "
                          "many tiny ops that overhead, not the arithmetic, sets the time.",
                          "每个算子都有几微秒的固定分派（在 GPU 上还有启动）开销；算子又多又小时，决定耗时的是这些开销而不是计算本身。"),
    "many_tiny_ops.fix": ("fuse them: torch.compile, a fused op (F.gelu, F.scaled_dot_product_attention...), "
                          "vectorise Python loops into one tensor op, or CUDA graphs on a GPU",
                          "融合它们：torch.compile、融合算子（F.gelu、F.scaled_dot_product_attention……）、把 Python 循环向量化为一个张量运算，"
                          "或在 GPU 上用 CUDA 图"),
    "other_load.title": ("other load on the machine", "机器上有其他负载"),
    "other_load.message": ("other processes used {value:.1f} of {cores} cores while measuring",
                           "测量期间其他进程占用了 {cores} 个核中的 {value:.1f} 个"),
    "other_load.why": ("Other work competes for cores, caches and memory bandwidth, and preempts the measurement.",
                       "其他任务争用 CPU 核、缓存和内存带宽，并会抢占测量过程。"),
    "other_load.fix": ("stop other jobs, or pin them and this process to separate cores (taskset)",
                       "停止其他任务，或把它们和本进程绑定到不同的核（taskset）"),
    "cpu_frequency.title": ("CPU frequency governor", "CPU 调频策略"),
    "cpu_frequency.message": ("CPU frequency governor is '{governor}'", "CPU 调频策略为 '{governor}'"),
    "cpu_frequency.why": ("With a power-saving governor the clock speed changes with load, so the first samples and "
                          "short runs can be slower.",
                          "使用省电调频策略时，时钟频率随负载变化，最初的样本和短时运行可能更慢。"),
    "cpu_frequency.fix": ("for benchmarking, set the governor to 'performance' (cpupower frequency-set -g "
                          "performance)",
                          "测量时把调频策略设为 performance（cpupower frequency-set -g performance）"),
    "threads.title": ("thread count", "线程数"),
    "threads.message": ("torch uses {value:.0f} threads on {threshold:.0f} available cores",
                        "torch 在 {threshold:.0f} 个可用核上使用 {value:.0f} 个线程"),
    "threads.why": ("More compute threads than cores makes threads wait for each other and inflates times.",
                    "计算线程多于 CPU 核时，线程互相等待，耗时被拉长。"),
    "threads.fix": ("torch.set_num_threads({threshold:.0f}) or fewer", "torch.set_num_threads({threshold:.0f}) 或更少"),
    "tf32_off.title": ("TF32 off", "TF32 未开启"),
    "tf32_off.message": ("float32 matrix products on {gpu} (tensor cores, sm{sm}) run with TF32 off",
                         "{gpu}（张量核，sm{sm}）上的 float32 矩阵乘在 TF32 关闭的情况下运行"),
    "tf32_off.why": ("TF32 runs float32 matmuls on tensor cores, several times faster, with a 10-bit mantissa (about "
                     "1e-3 relative error per product) instead of 23 bits. PyTorch leaves it off by default.",
                     "TF32 让 float32 矩阵乘在张量核上运行，快数倍，尾数 10 位（每次乘积约 1e-3 相对误差）而非 23 位。PyTorch 默认关闭。"),
    "tf32_off.fix": ("if that precision is acceptable: torch.set_float32_matmul_precision('high'); otherwise keep it "
                     "off and consider bf16 autocast for the speed",
                     "若精度允许：torch.set_float32_matmul_precision('high')；否则保持关闭，并考虑用 bf16 autocast 提速"),
    "memory.title": ("memory", "内存"),
    "memory.message": ("peak device memory during one call: {peak_bytes:mib} above the {base_bytes:mib} already "
                       "allocated",
                       "一次调用期间的设备内存峰值：在已分配的 {base_bytes:mib} 之上再多 {peak_bytes:mib}"),
    "memory.message.cpu": ("about {alloc_bytes:mib} allocated per call on the CPU (profiler)",
                           "CPU 上每次调用约分配 {alloc_bytes:mib}（剖析器）"),
    "memory.why": ("Measured with torch.cuda.max_memory_allocated after resetting the peak.",
                   "重置峰值后用 torch.cuda.max_memory_allocated 测得。"),
    "memory.why.cpu": ("The CPU has no peak counter per call; this is the sum of allocations the profiler saw.",
                       "CPU 上没有按调用的峰值计数，这是剖析器看到的分配总和。"),
    "memory.fix": ("", ""),
    "graph_breaks.title": ("graph breaks", "图中断"),
    "graph_breaks.message": ("the compiled function runs in {graphs} pieces: {value:.0f} graph break(s), the first "
                             "at {where}: {reason}",
                             "编译后的函数分成 {graphs} 段运行：{value:.0f} 处图中断，第一处在 {where}：{reason}"),
    "graph_breaks.why": ("At a graph break dynamo stops tracing and runs Python eagerly between compiled graphs: "
                         "no fusion across the break, and a launch and a guard check per piece.",
                         "在图中断处 dynamo 停止追踪，在编译好的图之间以 eager 方式运行 Python：中断两侧无法融合，"
                         "每段都要一次启动和守卫检查。"),
    "graph_breaks.fix": ("move print(), .item(), data-dependent Python control flow and unsupported calls out of "
                         "the compiled function (torch._dynamo.explain shows each break)",
                         "把 print()、.item()、依赖数据的 Python 控制流和不支持的调用移出编译的函数"
                         "（torch._dynamo.explain 会列出每处中断）"),
    "function_failed.title": ("the function failed", "函数运行失败"),
    "function_failed.message": ("{error}", "{error}"),
    "function_failed.why": ("The function raised, so the checks after this point could not run.", "函数抛出了异常，此后的检查无法运行。"),
    "function_failed.fix": ("fix the error, or doctor a smaller piece of the code", "先修复这个错误，或对更小的一段代码运行 doctor"),
}
