"""What a kernel's name says (:class:`KernelInfo`, what :func:`measurefirst.decode_kernel` returns), with the
vocabulary of its fields and the GPUs an architecture tag means. The type lives with the results (renderers
read it); :mod:`measurefirst.profiling.kernels` decodes names and re-exports it."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Every value :attr:`KernelInfo.library` can take.
LIBRARIES: tuple[str, ...] = ("cublas", "cublasLt", "cutlass", "cudnn", "triton", "pytorch",
                              "flash-attention", "nccl", "cuda-runtime", "other")
#: Every value :attr:`KernelInfo.op` can take (besides ``None``).
OPS: tuple[str, ...] = ("gemm", "gemv", "elementwise", "reduction", "attention", "collective",
                        "memcpy", "memset", "conv", "softmax", "norm", "other")
#: Every value :attr:`KernelInfo.dtype` can take (besides ``None``).
DTYPES: tuple[str, ...] = ("f32", "f16", "bf16", "tf32", "fp8", "int8", "f64")


@dataclass(frozen=True)
class KernelInfo:
    """What a kernel name says about the kernel. Unknown fields are ``None`` (``()`` for fused ops)."""

    name: str
    library: str = "other"
    op: str | None = "other"
    arch: str | None = None
    dtype: str | None = None
    tile: str | None = None
    layout: str | None = None
    tensor_cores: bool | None = None
    fused_ops: tuple[str, ...] = ()

    @property
    def gpu(self) -> str | None:
        """The GPUs :attr:`arch` means (``"Hopper (H100, H200)"`` for ``sm90``), or ``None``."""
        return gpu_family(self.arch)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dictionary (``fused_ops`` as a list)."""
        return {"name": self.name, "library": self.library, "op": self.op, "arch": self.arch,
                "dtype": self.dtype, "tile": self.tile, "layout": self.layout,
                "tensor_cores": self.tensor_cores, "fused_ops": list(self.fused_ops)}


#: The GPUs an architecture tag means (proper names, the same in every language).
GPU_FAMILIES: dict[str, str] = {
    "sm35": "Kepler (K40, K80)", "sm50": "Maxwell (M40)", "sm60": "Pascal (P100)", "sm61": "Pascal (GTX 10, P40)",
    "sm70": "Volta (V100)", "sm75": "Turing (T4, RTX 20)", "sm80": "Ampere (A100, A30)",
    "sm86": "Ampere (RTX 30, A10, A40)", "sm87": "Ampere (Jetson Orin)",
    "sm89": "Ada (RTX 40, L4, L40)", "sm90": "Hopper (H100, H200)", "sm100": "Blackwell (B200, GB200)",
    "sm103": "Blackwell Ultra (B300, GB300)", "sm120": "Blackwell (RTX 50)",
    "sm121": "Blackwell (DGX Spark GB10)",
}


def gpu_family(arch: str | None) -> str | None:
    """The GPUs an architecture tag means: ``"sm100"`` -> ``"Blackwell (B200, GB200)"``; ``sm90a`` and
    ``SM_90`` read as ``sm90``; ``None`` for an unknown or missing tag."""
    if not arch:
        return None
    m = re.fullmatch(r"(?i)sm_?(\d+)[af]?", arch.strip())
    return GPU_FAMILIES.get(f"sm{m.group(1)}") if m else None
