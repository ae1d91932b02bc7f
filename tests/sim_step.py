"""A training step whose every phase launches work on the simulated GPU: data (a 100 µs copy,
1 MiB), forward (``fwd_us``, 3 MiB), backward (500 µs, 5 MiB), optimizer (200 µs, 2 MiB)."""

import torch

US = 1000.0


class SimOp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, fwd, bwd):  # noqa: ARG004
        ctx.bwd = bwd
        fwd()
        return x * w

    @staticmethod
    def backward(ctx, grad):
        ctx.bwd()
        return None, grad.sum(), None, None


class SimModel(torch.nn.Module):
    def __init__(self, gpu, fwd_us=300.0):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(()))
        self.fwd = gpu.kernel(fwd_us * US, alloc=3 << 20)
        self.bwd = gpu.kernel(500 * US, alloc=5 << 20)

    def forward(self, x):
        return SimOp.apply(x, self.w, self.fwd, self.bwd)


class SimSGD(torch.optim.SGD):
    def __init__(self, params, kernel):
        super().__init__(params, lr=0.0)
        self._kernel = kernel

    def step(self, closure=None):
        self._kernel()
        return super().step(closure)


def sim_step_parts(gpu, fwd_us=300.0):
    """``(model, optimizer, batches, loss_fn)`` for benchmark_step on ``gpu``."""
    model = SimModel(gpu, fwd_us)
    opt = SimSGD(model.parameters(), gpu.kernel(200 * US, alloc=2 << 20))
    copy = gpu.kernel(100 * US, alloc=1 << 20)
    x = torch.ones(4, 8)

    def batches():
        copy()  # the host-to-device copy
        return x

    def loss_fn(m, b):
        return m(b).sum()

    return model, opt, batches, loss_fn
