"""The words of the findings on a training step (on one rank or many), in English and Chinese: each code's
title, message, why and fix. A table of the one format of :data:`measurefirst.render.words.Words`, merged into
:data:`measurefirst.render.findings.FINDING_WORDS`."""

from .words import Words

STEP_FINDING_WORDS: Words = {
    # ---- a training step ------------------------------------------------------------------------
    "data_starvation.title": ("data starvation", "数据供给不足"),
    "data_starvation.message": ("the data phase takes {value:.0%} of the step", "数据阶段占一步的 {value:.0%}"),
    "data_starvation.why": ("While the batch is being produced, the device has nothing to do.", "在准备批数据期间，设备无事可做。"),
    "data_starvation.fix": ("use DataLoader workers (num_workers), pin_memory=True and non_blocking copies, or "
                            "prefetch the next batch during compute",
                            "使用 DataLoader 的 num_workers、pin_memory=True 和 non_blocking 拷贝，或在计算时预取下一批"),
    "recompile_during_timing.title": ("recompiles while timed", "计时期间重编译"),
    "recompile_during_timing.message": ("{value:.0f} graph(s) compiled after warm-up", "预热后又编译了 {value:.0f} 个图"),
    "recompile_during_timing.message.reason": ("{value:.0f} graph(s) compiled after warm-up, the first because a guard "
                                               "failed: {reason}",
                                               "预热后又编译了 {value:.0f} 个图，第一次是因为守卫条件失败：{reason}"),
    "recompile_during_timing.why": ("A recompilation inside the timed steps adds seconds to a step that normally "
                                    "takes milliseconds, and the average no longer describes the step.",
                                    "计时步内的重编译会给原本只要几毫秒的一步增加数秒，平均值不再描述这一步。"),
    "recompile_during_timing.fix": ("mark dynamic dimensions (torch._dynamo.mark_dynamic), pad inputs to fixed "
                                    "shapes, or warm up on every shape first",
                                    "标记动态维度（torch._dynamo.mark_dynamic）、把输入填充到固定形状，或先在每种形状上预热"),
    "compile_time.title": ("compile time", "编译耗时"),
    "compile_time.message": ("compilation took about {value:.2f} s in warm-up (excluded from the step time)",
                             "预热中编译约用了 {value:.2f} 秒（不计入每步耗时）"),
    "compile_time.why": ("The first call of a compiled model compiles it; counting that call as a step makes a "
                         "compiled model look many times slower than eager.",
                         "编译后模型的第一次调用会进行编译；把这次调用算作一步，会让编译后的模型看起来比 eager 慢很多倍。"),
    "compile_time.fix": ("", ""),
    "cudnn_benchmark_varying_shapes.title": ("cudnn.benchmark with varying shapes", "cudnn.benchmark 遇到变化的形状"),
    "cudnn_benchmark_varying_shapes.message": ("cudnn.benchmark is on and the batches had {value:.0f} different "
                                               "shapes",
                                               "cudnn.benchmark 已开启，而批数据有 {value:.0f} 种不同的形状"),
    "cudnn_benchmark_varying_shapes.why": ("cuDNN re-runs its algorithm search for every new shape.",
                                           "cuDNN 会为每种新形状重新搜索算法。"),
    "cudnn_benchmark_varying_shapes.fix": ("turn cudnn.benchmark off, or bucket/pad inputs to a few shapes",
                                           "关闭 cudnn.benchmark，或把输入分桶/填充到少数几种形状"),
    "peak_memory_phase.title": ("peak memory phase", "内存峰值所在阶段"),
    "peak_memory_phase.message": ("the step's peak memory ({peak_bytes:mib} allocated) happens in the {phase} phase",
                                  "一步的内存峰值（已分配 {peak_bytes:mib}）出现在 {phase} 阶段"),
    "peak_memory_phase.why": ("Memory plans should size for the phase where the peak is, often the optimizer step "
                              "(states and gradients alive together), not the forward.",
                              "内存规划应以峰值所在的阶段为准，这通常是优化器步（状态与梯度同时存在），而不是前向。"),
    "peak_memory_phase.fix": ("", ""),
    "mfu_above_100.title": ("MFU above 100%", "MFU 超过 100%"),
    "mfu_above_100.message.table": ("MFU against the table peak is {value:.0%}: impossible",
                                    "相对峰值表的 MFU 为 {value:.0%}：不可能"),
    "mfu_above_100.message.measured": ("MFU against the measured peak is {value:.0%}: above 100%, so the measured "
                                       "peak ({peak_flops:si}FLOP/s, {dtype}, {threads} threads, measured "
                                       "{measured_at} at load {load:.2f} on {cpus} CPUs) is the wrong ceiling, not "
                                       "the step",
                                       "相对实测峰值的 MFU 为 {value:.0%}：超过 100%，所以错的是实测峰值（{peak_flops:si}FLOP/s，{dtype}，"
                                       "{threads} 线程，测于 {measured_at}，当时负载 {load:.2f}，共 {cpus} 个 CPU），而不是这一步"),
    "mfu_above_100.why": ("Utilisation above 100% means an input is wrong, not that the model is fast.",
                          "利用率超过 100% 说明某个输入有误，而不是模型真有这么快。"),
    "mfu_above_100.fix": ("check the FLOPs per step (double-counted backward? all ranks' tokens on one device?), the "
                          "step time (synchronized?) and the peak (dense, right GPU and dtype)",
                          "检查每步 FLOPs（反向算了两次？把所有进程的 token 算在一个设备上？）、每步耗时（是否同步？）和峰值（稠密、GPU 与数据类型是否正确）"),
    "mfu_above_100.fix.measured": ("measure the peak again on a quiet machine, with the step's dtype and threads "
                                   "(measurefirst peaks --refresh --dtype ...); check the FLOPs per step too",
                                   "在安静的机器上按这一步的数据类型和线程数重测峰值（measurefirst peaks --refresh --dtype ...）；也检查每步 FLOPs"),
    "mfu_above_100.message.measured_untold": ("MFU against the measured peak ({peak_flops:si}FLOP/s, how it was "
                                              "measured not recorded) is {value:.0%}: above 100%, so that peak is "
                                              "the wrong ceiling, not the step",
                                              "相对实测峰值（{peak_flops:si}FLOP/s，未记录测量条件）的 MFU 为 {value:.0%}：超过 100%，"
                                              "所以错的是这个峰值，而不是这一步"),
    "mfu_above_100.fix.measured_untold": ("measure the peak again on a quiet machine, with the step's dtype and "
                                          "threads (measurefirst peaks --refresh --dtype ...); check the FLOPs per "
                                          "step too",
                                          "在安静的机器上按这一步的数据类型和线程数重测峰值（measurefirst peaks --refresh --dtype ...）；"
                                          "也检查每步 FLOPs"),
    "batch_mismatch.title": ("batch size mismatch", "批大小不一致"),
    "batch_mismatch.message": ("micro_batch={threshold:.0f} but the batches have {value:.0f} samples",
                               "micro_batch={threshold:.0f}，但批数据有 {value:.0f} 个样本"),
    "batch_mismatch.why": ("Throughput is samples (or tokens) per second; a wrong batch size makes every derived "
                           "number wrong by the same factor.",
                           "吞吐是每秒样本（或 token）数；批大小错了，所有导出的数字都按同一倍数出错。"),
    "batch_mismatch.fix": ("pass the per-device micro-batch the loader actually yields", "传入数据加载器实际给出的每设备微批大小"),
    "table_contradicts_verdict.title": ("table contradicts the verdict", "表格与结论不一致"),
    "table_contradicts_verdict.message": ("the phase table puts this step at {value:.2f}x {baseline}'s, far from the "
                                          "interleaved verdict ({ci_low:.2f}x–{ci_high:.2f}x): the machine's speed "
                                          "changed between the tables; trust the verdict",
                                          "阶段表给出的这一步是 {baseline} 的 {value:.2f} 倍，"
                                          "远离交错测量的结论（{ci_low:.2f}x–{ci_high:.2f}x）：机器速度在两张表之间变了；以结论为准"),
    "table_contradicts_verdict.message.undecided": ("the phase table puts this step at {value:.2f}x {baseline}'s; "
                                                    "the interleaved verdict is undecided ({rounds} rounds, too few "
                                                    "for a 95% CI; its estimate is {verdict_ratio:.2f}x): neither "
                                                    "settles the difference",
                                                    "阶段表给出的这一步是 {baseline} 的 {value:.2f} 倍；交错测量的结论尚无定论（{rounds} 轮，"
                                                    "不足以给出 95% 置信区间；其估计为 {verdict_ratio:.2f}x）：两者都不能确定差异"),
    "table_contradicts_verdict.fix.undecided": ("give the interleaved comparison more steps (compare_budget=...) "
                                                "until its verdict has a 95% CI; until then neither the table nor "
                                                "the verdict tells which is faster",
                                                "给交错比较更多的步数（compare_budget=...），直到结论有 95% 置信区间；在此之前，表格与结论都不能说明哪个更快"),
    "table_contradicts_verdict.why": ("Tables are measured one variant after another, so a change in the machine's "
                                      "load between them moves one table and not the other; the verdict alternates "
                                      "the variants round by round.",
                                      "各表是一个变体接一个变体测的，机器负载在其间的变化只影响其中一张；结论则逐轮交替各变体。"),
    "table_contradicts_verdict.fix": ("read speed differences from the interleaved verdict; read the table for where "
                                      "the time goes within one step",
                                      "速度差异看交错测量的结论；一步之内时间花在哪里看表格"),
    "rank_straggler.title": ("a straggling rank", "掉队的进程"),
    "rank_straggler.message": ("rank {rank} ({host}, local rank {local_rank}) computes its {phase} phase {value:.0%} "
                               "slower than the median rank (compute: the phase's time net of waiting in collectives); "
                               "the others wait {cost_ns:ns} per step for it",
                               "进程 {rank}（{host}，本地进程 {local_rank}）的 {phase} 阶段计算比中位进程慢 {value:.0%}"
                               "（计算：该阶段时间扣除在集合通信中的等待）；其他进程每步要等它 {cost_ns:ns}"),
    "rank_straggler.why": ("Every collective waits for the last rank to arrive, so one slow rank sets the pace of "
                           "the whole group: the time the others spend waiting is lost on every one of them.",
                           "每个集合通信都要等最后一个进程到达，所以一个慢进程决定了整个组的节奏：其他进程等待的时间在每个进程上都被浪费掉。"),
    "rank_straggler.fix": ("look at that rank's node: other jobs, a throttled or degraded GPU, slower data loading, "
                           "an uneven share of the data (sequence lengths); rerun to see whether it follows the node "
                           "or the rank",
                           "检查该进程所在的节点：其他作业、降频或故障的 GPU、更慢的数据加载、不均匀的数据分配（序列长度）；重跑一次，看问题跟着节点走还是跟着进程号走"),
}
