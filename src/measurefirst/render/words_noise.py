"""The words of the machine's noise profile (``measurefirst selfcheck --noise``) and of the progress line, in
English and Chinese. A table of the one format of :data:`measurefirst.render.words.Words`, merged into
:data:`measurefirst.render.words.WORDS`."""

NOISE_WORDS = {
    # ---- the machine's noise profile (selfcheck --noise; render/noise.py) ----------------------------------
    "noise.title": ("noise profile of {machine}: {processes} fresh processes, {created}",
                    "{machine} 的噪声画像：{processes} 个全新进程，{created}"),
    "noise.col.work": ("work", "负载"),
    "noise.col.time": ("call time", "单次调用耗时"),
    "noise.col.fresh": ("fresh-process CV", "跨新进程 CV"),
    "noise.col.within": ("in-process CV", "进程内 CV"),
    "noise.col.ratio": ("ratio", "比值"),
    "noise.kind.python": ("Python busy-wait", "Python 忙等"),
    "noise.kind.dispatch": ("torch.add, 1 element", "torch.add，1 个元素"),
    "noise.kind.compute": ("matmul 256x256", "矩阵乘 256x256"),
    "noise.kind.memory": ("copy of 32 MiB", "复制 32 MiB"),
    "noise.uses": ("benchmark() on this machine now widens its repetitions' spread by the kind of work a call that "
                   "long is ({i2}x at 2 µs, {i300}x at 300 µs, {i2m}x at 2 ms; by the kind its torch functions "
                   "show where they show one) and takes at least the busy-wait's fresh-process spread for a call that long ({f2} "
                   "at 2 µs, {f20} at 20 µs, {f2m} at 2 ms), and for a compute- or memory-bound call that kind's "
                   "({fc} and {fm})",
                   "此后本机上的 benchmark() 会按同样时长调用的工作类型放大重复之间的波动（2 µs 时 {i2} 倍，300 µs 时 "
                   "{i300} 倍，2 ms 时 {i2m} 倍；能从其 torch 函数看出类型时按该类型），并至少取同样时长忙等的跨进程波动"
                   "（2 µs 时 {f2}，20 µs 时 {f20}，2 ms 时 {f2m}），算力受限或内存受限的调用还至少取该类型的"
                   "（{fc} 与 {fm}）"),
    "noise.saved": ("saved to {path}", "已保存到 {path}"),
    "noise.progress": ("noise profile: fresh process {i} of {n}", "噪声画像：第 {i}/{n} 个全新进程"),
    "progress.tool.demo": ("lecture", "讲座"),
    "progress.tool.selfcheck": ("selfcheck", "自检"),
    "progress.tool.step": ("training step", "训练步"),
    "progress.tool.collectives": ("collectives", "集合通信"),
    "progress.tool.sweep": ("sweep", "规模扫描"),
    "progress.tool.compare": ("compare", "对比"),
    "progress.tool.profile": ("profile", "剖析"),
    "progress.tool.doctor": ("doctor", "诊断"),
    "progress.tool.bench": ("benchmark", "基准"),
    "progress.tool.first": ("first call", "第一次调用"),
    "progress.first": ("first call: {seconds} s so far (compiling, or another one-time cost)",
                       "第一次调用：已用 {seconds} 秒（正在编译，或其他一次性开销）"),
    "progress.count": ("{done} of {total}", "第 {done}/{total}"),
    "progress.left": ("{left} s of the budget left", "预算还剩 {left} 秒"),
    "noise.status.corrupt": ("the noise profile file is damaged and was ignored; measure it again: "
                             "measurefirst selfcheck --noise",
                             "噪声画像文件已损坏，已忽略；请重新测量：measurefirst selfcheck --noise"),
    "processes_over_repeats": ("--processes {processes} and --repeats {repeats}: the run-to-run spread is the {processes} "
                               "fresh processes'; --repeats only cuts each process's sampling into {repeats} "
                               "repetitions (its stopping rule)",
                               "--processes {processes} 与 --repeats {repeats}：运行间离散度取自 {processes} 个新进程；"
                               "--repeats 只把每个进程的采样切成 {repeats} 段重复（用于其停止规则）"),
    "noise.status.missing": ("MEASUREFIRST_PROFILE names a noise profile that does not exist, so measurefirst's prior "
                             "was used; write it there with measurefirst selfcheck --noise, or unset the variable",
                             "MEASUREFIRST_PROFILE 指向的噪声画像不存在，因此使用了 measurefirst 的先验；"
                             "用 measurefirst selfcheck --noise 在该路径写入画像，或取消该变量"),
    "noise.status.not_a_file": ("the noise profile's path is not a file (a folder, a FIFO or a device) and was not "
                                "read; point MEASUREFIRST_PROFILE at a file: measurefirst selfcheck --noise writes one",
                                "噪声画像的路径不是普通文件（是文件夹、FIFO 或设备），未读取；请让 MEASUREFIRST_PROFILE "
                                "指向一个文件：measurefirst selfcheck --noise 会写入一个"),
    "noise.status.other_threads": ("the noise profile was measured with other torch threads and was not used; "
                                   "measure it again: measurefirst selfcheck --noise",
                                   "噪声画像是在不同的 torch 线程数下测得的，未使用；请重新测量：measurefirst selfcheck --noise"),
}
