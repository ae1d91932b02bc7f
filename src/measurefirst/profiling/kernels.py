"""Decode GPU kernel names from torch.profiler / Nsight traces into what the kernel *is*.

``decode_kernel(name)`` is pure (only :mod:`re`, :mod:`dataclasses`, :mod:`typing`), never
raises, and returns a :class:`KernelInfo` with the library, the kind of operation, and whatever
the name itself says about architecture, element type, tile, layout and tensor-core use. Fields
the name does not state are ``None``; nothing is guessed from the machine.

How a name is read
==================

A name is first *normalised*: surrounding blanks are stripped, Itanium-mangled names (``_Z...``)
are soft-demangled into ``ns::name<ids...>`` (identifiers only, no types), ``(anonymous
namespace)`` / ``<unnamed>`` / ``_GLOBAL__N_...`` become ``anonymous_namespace``, and a leading
``void `` is dropped. A bracket-aware scan then splits a demangled C++ name into its qualified
function name (return types such as ``std::enable_if<...>::type`` and the parameter list are
dropped) and the function's template arguments, in which element types are looked up
(``float``, ``double``, ``c10::Half``/``__half``/``cutlass::half_t``, ``c10::BFloat16``/
``__nv_bfloat16``/``cutlass::bfloat16_t``, ``*float8*``/``float_e4m3_t``, ``int8_t``; the *first*
element type wins; complex types such as ``float2`` or ``c10::complex<float>`` give ``None``).
Only the first 16384 characters are analysed.

The families are an ordered table (``_FAMILIES``): each entry is a detector and an extractor, and
the first entry whose detector matches and whose extractor accepts the name wins. Adding a family
is adding one entry. Anything no entry accepts is library ``"other"``; its op is taken from plain
keywords in the function name (``...norm...`` -> ``norm``, ``...attention...`` -> ``attention``,
``...gemm...`` -> ``gemm``, ...) and is ``"other"`` when there are none.

Grammar decisions, family by family
-----------------------------------

* **CUDA runtime activities** (``Memcpy HtoD (Pageable -> Device)``, ``Memset (Device)``, Nsight's
  ``[CUDA memcpy HtoD]`` / ``[CUDA memset]``, and host API names such as ``cudaMemcpyAsync``):
  library ``cuda-runtime``, op ``memcpy``/``memset`` (``other`` for other API calls).
  ``memcpy`` is reserved for these copy-engine/DMA activities.
* **NCCL** (``ncclDevKernel_AllReduce_Sum_f32_RING_LL``, ``ncclKernel_AllGather_RING_LL_Sum_int8_t``):
  op ``collective``; dtype from the type token in the name (``f32``/``float``, ``f16``/``half``,
  ``bf16``/``__nv_bfloat16``, ``f64``/``double``, ``i8``/``int8_t``, ``f8e4m3``/``f8e5m2``). That is
  the type the kernel was instantiated for: NCCL runs AllGather/Broadcast on bytes, so those read
  ``int8`` whatever the tensor's type.
* **Triton / Inductor** (``triton_<kind>_fused_<ops>_<n>``): kind ``poi`` -> ``elementwise``,
  ``red``/``per`` -> ``reduction``, ``tem`` (templates) -> ``gemm`` (``conv`` if the fused ops contain
  ``convolution``, ``attention`` for ``flex_attention``/``sdpa``), ``for`` -> ``elementwise``. For
  every kind but ``tem``, fused ops that are a softmax (``_softmax``, ``_log_softmax``...) make the op
  ``softmax`` and layer/batch/group/RMS norms make it ``norm``. ``fused_ops`` keeps ATen op names as
  Inductor wrote them, leading underscores included (``fused__softmax`` -> ``("_softmax",)``),
  joining known multi-word ops (``native_layer_norm``, ``_to_copy``, ``index_put``...). The trailing
  kernel index (and old ``0d1d2d`` specialisation suffixes) is dropped. Other ``triton_*`` names are
  library ``triton`` with a keyword op.
* **FlashAttention** (``flash_fwd_kernel``, ``flash_fwd_splitkv_kernel``, ``flash::...``,
  ``pytorch_flash::...`` (FA2 vendored in PyTorch), ``FlashAttnFwdSm90`` (FA3)): library
  ``flash-attention``, op ``attention``, tensor cores ``True``; dtype from ``cutlass::half_t`` /
  ``cutlass::bfloat16_t`` in the traits; arch only when the name says ``Sm90``-style.
* **Memory-efficient attention** (``fmha_cutlassF_f16_aligned_64x64_rf_sm80``, ``fmha_cutlassB_...``,
  ``AttentionKernel<...>``): library ``cutlass``. Decision: these are the xFormers kernels built on
  CUTLASS; PyTorch vendors them (``PyTorchMemEffAttention``) but the same names appear in xFormers
  traces, and the name itself says ``cutlass``, so ``"pytorch"`` would be wrong half the time.
  ``fmha_cutlass<F|B>_<dtype>_<aligned>_<MxN>[_k<D>][_rf|_gmem]_sm<XX>`` gives dtype, tile and
  arch; tensor cores are ``True`` from sm80 on and for 16-bit types on sm70/sm75, ``False`` for
  sm50 or f32 before sm80 (the kernel falls back to SIMT there).
* **cuDNN SDPA** (``cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_...``):
  library ``cudnn``, op ``attention``, arch from ``sm90``, tile the first ``AxBxC``; dtype only for
  ``fp8``/``e4m3``/``e5m2``. The ``f16`` token is *not* mapped: ``..._flash_fprop_f16_...`` kernels
  are reported from what look like bf16 runs, so it may mean "16-bit"; unconfirmed, it is left
  ``None`` rather than guessed.
* **nvjet** (cuBLASLt's generated kernels on Hopper/Blackwell):
  ``nvjet_[sm<XX>_]<types>[_tf32]_<MxN>_<KxStages>_<cluster>[_2cta]_<h|v>_<epilogue>..._<ABC layout>``.
  Library ``cublasLt``, op ``gemm``, tile the first ``MxN``, layout the final ``[TN]{3}`` token as
  written (``TNN``), arch from the optional ``sm<XX>`` token (newer cuBLASLt only). The type letters
  read ``<A/B><compute><D>`` (``hsh``; five letters ``qqtst`` = A, B, C, compute, D); only the first
  letter is used: ``h`` -> f16, ``t`` -> **bf16**, ``s`` -> f32 (``tf32`` when a ``_tf32`` token
  follows), ``q`` -> fp8; other letters give ``None``. ``t`` is *not* tf32: a bf16
  ``torch.nn.functional.linear`` runs ``nvjet_tst_*`` (pytorch/pytorch#161134), and fp16 output
  gives ``hsh`` while fp32 output gives ``hss``. Tensor cores ``True`` (``None`` for ``sss``
  without ``tf32``, which may be an fp32 emulation path).
* **XMMA** (cuBLAS/cuDNN ``sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_..._kernel``,
  ``sm90_xmma_gemm_..._cublas``, ``sm80_xmma_fprop_implicit_gemm_..._cudnn``): arch from ``sm<XX>``,
  tile from ``tilesize<MxNxK>``, layout the first ``[nt]{2}`` token. The first type pair is A/B
  (``bf16bf16`` -> bf16); a ``tf32`` in the second pair (``f32f32_tf32f32``) makes it tf32.
  ``fprop``/``dgrad``/``wgrad``/``implicit_gemm`` or a ``cudnn`` suffix -> library ``cudnn``, op
  ``conv``; otherwise library ``cublas`` (the names end in ``_cublas``; ``cublasLt`` only if the name
  says so), op ``gemm``. Tensor cores ``True`` with a ``tensorMxNxK``/``warpgroupsize`` tag or a
  tensor-core type, ``False`` for ``ffma`` kernels, else ``None``.
* **CUTLASS 3.x**, e.g. ``cutlass3x_sm90_tensorop_s64x128x16gemm_f16_f16_f32_void_f16_128x128x64_...``::

      cutlass3x_<arch>_<opclass>_[<acc><instr>]<kind>_<A>_<B>_<Acc>_<C>_<D>
               _<tile MxNxK>_<cluster>_<stages>_<layout>_align<N>[_<schedule>]

  dtype is A's type (a ``tf32`` in the instruction token wins; ``ue8m0xe4m3`` block-scaled -> fp8;
  fp4/fp6 -> ``None``), tile the first pure ``MxNxK`` token after the types (the instruction shape
  is fused into the ``...gemm`` token, so it is never taken), layout as written (``tnn``),
  tensor cores from the opclass (``tensorop`` -> True, ``simt`` -> False).
* **CUTLASS 2.x** (``cutlass_tensorop_s1688gemm_f16_256x128_32x2_tn_align8``,
  ``cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8``, ``cutlass_simt_sgemm_...``,
  possibly wrapped as ``cutlass::Kernel2<...>``)::

      cutlass[_<cc>]_<opclass>[_<C type>]_<acc><instr>[<math type>]<kind>[_<epilogue>][_<A type>]
             _<tile MxN>_<K>x<stages>_<layout>_align<N>

  ``<cc>`` (``80``) is the arch; the accumulator letter is ``s``/``h``/``d``/``i``/``c``/``z``;
  ``s16816gemm`` = fp32 accumulate on a 16x8x16 MMA. dtype is the math type inside the core
  (``s1688tf32gemm`` -> tf32), else the A type after the core, else (A omitted because it equals
  the accumulator) the accumulator letter (``sgemm`` -> f32, ``h...`` -> f16, ``d...`` -> f64,
  complex -> ``None``). The type *before* the core is C's (``..._int32_i16832gemm_int8`` is int8).
  Tile is the threadblock ``MxN`` (``256x128``); ``32x2`` is K-tile x stages and is not reported.
  Epilogue words such as ``relu`` are *not* reported as fused ops: cuBLAS picks
  ``..._s16816gemm_relu_...`` kernels for plain matmuls (pytorch/pytorch#181718).
  Kinds ``fprop``/``dgrad``/``wgrad`` are ``conv``. CUTLASS inside cuDNN (``cutlass_cudnn::Kernel<...>``,
  ``cutlass__5x_cudnn::...``) is parsed the same way but reported as library ``cudnn``.
* **cuBLAS/cuDNN generation-prefixed kernels** (``ampere_sgemm_128x64_tn``, ``volta_h884gemm_64x64_nt``,
  ``turing_fp16_s1688gemm_fp16_256x128_ldg8_f2f_tn``, ``ampere_bf16_s16816gemm_bf16_..._stages_64x4_tn``,
  ``maxwell_scudnn_winograd_128x128_..._nt``, ``cudnn_infer_ampere_scudnn_...``):
  ``<generation>_[<C type>_]<acc>[<instr>]<gemm|cudnn>[_<A type>]_<MxN>_..._<layout>``. Generations map
  to ``kepler`` sm35, ``maxwell`` sm50, ``pascal`` sm60, ``volta`` sm70, ``turing`` sm75, ``ampere`` sm80,
  ``ada`` sm89, ``hopper`` sm90, ``blackwell`` sm100. dtype: the A type after the core, else the
  accumulator letter when that is unambiguous (``sgemm`` f32, ``h884gemm`` f16, ``dgemm`` f64,
  ``i...`` int8); an MMA core with an ``s`` accumulator and no A type gives ``None``. Tensor cores
  are ``True`` when the core carries an MMA shape (``884``, ``1688``, ``16816``), ``False`` for
  ``sgemm``/``hgemm``/``dgemm``/``scudnn``. ``gemm`` cores are cuBLAS ``gemm``; ``cudnn`` cores are
  cuDNN ``conv``.
* **cuDNN** otherwise: any name mentioning ``cudnn`` (``cudnn::detail::implicit_convolve_sgemm<...>``,
  ``cudnn::bn_fw_inf_1C11_kernel_NHWC<...>``, kernels taking ``cudnnTensorStruct``); op from keywords
  (conv words before gemm, ``bn_``/``norm`` -> ``norm``, ``op_tensor``/``pointwise`` ->
  ``elementwise``).
* **CUTLASS templates** (``cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<...>>``,
  ``cutlass::Kernel<...>``): op from the namespaces (``conv`` before ``gemm``), arch from
  ``arch::Sm90`` / ``SM90_...`` atoms, tensor cores from ``OpClassTensorOp``/``GMMA``/``UMMA``
  (``OpClassSimt`` -> False).
* **cuBLAS helpers** (``gemv2T_kernel_val<...>``, ``internal::gemvx::kernel<...>``, ``gemmSN_TN_kernel``,
  ``gemmk1_kernel``, anything carrying ``cublas...Params``): gemv names -> ``gemv``, gemm names ->
  ``gemm``, ``dot``/``nrm2``/``asum`` -> ``reduction``, ``scal``/``axpy`` -> ``elementwise``. Tensor
  cores ``None`` (the name does not say). cuBLASLt's ``cublasLt::splitKreduce_kernel`` is library
  ``cublasLt`` and op ``gemm``: it is the second half of a split-K GEMM.
* **PyTorch native** (``at::native::...``, ``at::cuda::...``, or a known ATen kernel name such as
  ``softmax_warp_forward``/``elementwise_kernel`` when a trace drops the namespace): the op follows
  the kernel's name: softmax kernels -> ``softmax``; layer/batch/group norm kernels -> ``norm``;
  ``reduce_kernel`` and friends -> ``reduction``; the elementwise templates (vectorized, unrolled,
  index, copy) -> ``elementwise``. Decision: ``CatArrayBatchedCopy`` (``torch.cat``) and
  ``direct_copy_kernel_cuda`` copies are ``elementwise`` -- they are SM kernels streaming memory
  like any elementwise op, while ``memcpy`` means copy-engine transfers. dtype is the first element
  type in the template arguments.

``tensor_cores`` is only stated for matrix-multiply-like families (GEMM, conv, attention);
it is ``None`` for elementwise, reduction, copy and collective kernels. ``fused_ops`` is only filled
for Triton/Inductor names, the one family whose names list what was fused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from ..results.kernel import (DTYPES as DTYPES, GPU_FAMILIES as GPU_FAMILIES, LIBRARIES as LIBRARIES, OPS as OPS,
                             KernelInfo as KernelInfo, gpu_family as gpu_family)
from .kernel_attention import _cudnn_sdpa, _flash, _mem_efficient
from .kernel_cublas import (_CUBLAS_NAMES, _cublas_misc, _cublaslt_namespace, _cudnn_generic, _LEGACY, _legacy, _nvjet,
                            _XMMA, _xmma)
from .kernel_cutlass import _CUTLASS2, _cudnn_cutlass, _cutlass2, _cutlass3, _cutlass_template
from .kernel_grammar import MAX_ANALYSED_CHARS as MAX_ANALYSED_CHARS
from .kernel_grammar import _Fields, _keyword_op, _Name, _parse
from .kernel_pytorch import _ATEN_KERNELS, _ATEN_NAMESPACE, _pytorch, _triton
from .kernel_runtime import _CUDA_API, _cuda_runtime, _MEM_ACTIVITY, _nccl

__all__ = ["DTYPES", "GPU_FAMILIES", "KernelInfo", "LIBRARIES", "OPS", "decode_kernel", "decode_many", "gpu_family"]


def _other(n: _Name) -> _Fields:
    return {"op": _keyword_op(n.base, n.qualified)}


# ----------------------------------------------------------------------------------------------
# The family table. Order matters: the first family whose detector matches and whose extractor
# does not decline wins. Family extractors (one module per family group) each take the parsed name and
# the detector's match, and return the fields they can read, or None to pass the name on to the next family.

_Detector = Callable[[_Name], Optional["re.Match[str]"]]
_Extractor = Callable[[_Name, "re.Match[str]"], Optional[_Fields]]


@dataclass(frozen=True)
class _Family:
    label: str
    library: str
    detect: _Detector
    extract: _Extractor


def _on(field: str, pattern: str, flags: int = 0) -> _Detector:
    compiled = re.compile(pattern, flags)

    def detect(n: _Name) -> re.Match[str] | None:
        return compiled.search(getattr(n, field))
    return detect


def _any(*detectors: _Detector) -> _Detector:
    def detect(n: _Name) -> re.Match[str] | None:
        for d in detectors:
            found = d(n)
            if found is not None:
                return found
        return None
    return detect


_FAMILIES: tuple[_Family, ...] = (
    _Family("cuda runtime activity", "cuda-runtime",
            _any(_on("raw", _MEM_ACTIVITY.pattern, re.IGNORECASE), _on("raw", _CUDA_API.pattern)),
            _cuda_runtime),
    _Family("nccl", "nccl", _on("text", r"\bnccl\w*Kernel|^nccl:"), _nccl),
    _Family("triton / inductor", "triton", _on("text", r"^triton_"), _triton),
    _Family("flash-attention", "flash-attention",
            _on("text", r"\bpytorch_flash::|\bflash::|\bflash_fwd_|\bflash_bwd_|FlashAttn|FlashAttention"
                        r"|Flash_fwd_kernel_traits|Flash_bwd_kernel_traits"), _flash),
    _Family("memory-efficient attention (xformers, cutlass-based)", "cutlass",
            _on("text", r"\bfmha_cutlass[FB]_|\bAttentionKernel<|\bAttentionBackwardKernel<"
                        r"|PyTorchMemEffAttention::|\battention_kernel_(?:backward_)?batched_impl\b"),
            _mem_efficient),
    _Family("cudnn sdpa", "cudnn", _on("text", r"cudnn\w*sdpa"), _cudnn_sdpa),
    _Family("cublasLt nvjet", "cublasLt", _on("text", r"^nvjet_"), _nvjet),
    _Family("cublasLt namespace", "cublasLt", _on("text", r"\bcublasLt::|\bcublasLt_"), _cublaslt_namespace),
    _Family("xmma (cublas/cudnn)", "cublas", _on("text", _XMMA.pattern), _xmma),
    _Family("cutlass inside cudnn", "cudnn", _on("text", r"\bcutlass_\w*cudnn::"), _cudnn_cutlass),
    _Family("cutlass 3.x", "cutlass", _on("text", r"\bcutlass3x_(sm\d+a?)_(\w+)"), _cutlass3),
    _Family("cutlass 2.x", "cutlass", _on("text", _CUTLASS2.pattern), _cutlass2),
    _Family("cublas/cudnn generation-prefixed", "cublas", _on("text", _LEGACY.pattern), _legacy),
    _Family("cudnn", "cudnn", _on("text", r"cudnn", re.IGNORECASE), _cudnn_generic),
    _Family("cutlass templates", "cutlass", _on("qualified", r"^cutlass(?:_\w+)?::"), _cutlass_template),
    _Family("cublas helpers", "cublas",
            _any(_on("qualified", _CUBLAS_NAMES.pattern), _on("text", r"cublas", re.IGNORECASE)),
            _cublas_misc),
    _Family("pytorch native", "pytorch",
            _any(_on("qualified", _ATEN_NAMESPACE.pattern),
                 _on("base", r"^(?:" + "|".join(sorted(_ATEN_KERNELS)) + r")\Z")),
            _pytorch),
)

def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _build(name: str, library: str, fields: _Fields) -> KernelInfo:
    """A KernelInfo from an extractor's fields, with every value checked against its vocabulary."""
    op = fields.get("op", "other")
    dtype = fields.get("dtype")
    tensor_cores = fields.get("tensor_cores")
    fused = fields.get("fused_ops", ())
    return KernelInfo(
        name=name,
        library=library if library in LIBRARIES else "other",
        op=None if op is None else op if isinstance(op, str) and op in OPS else "other",
        arch=_opt_str(fields.get("arch")),
        dtype=dtype if isinstance(dtype, str) and dtype in DTYPES else None,
        tile=_opt_str(fields.get("tile")),
        layout=_opt_str(fields.get("layout")),
        tensor_cores=tensor_cores if isinstance(tensor_cores, bool) else None,
        fused_ops=tuple(str(o) for o in fused) if isinstance(fused, (tuple, list)) else (),
    )


def decode_kernel(name: str) -> KernelInfo:
    """Decode one kernel name. Never raises: names nothing recognises come back as library "other"."""
    if not isinstance(name, str):
        try:
            name = str(name)
        except Exception:  # noqa: BLE001 - a decoder of trace data must not fail on odd input
            name = ""
    try:
        parsed = _parse(name)
        if not parsed.raw:
            return KernelInfo(name=name)
        for family in _FAMILIES:
            found = family.detect(parsed)
            if found is None:
                continue
            fields = family.extract(parsed, found)
            if fields is None:
                continue
            return _build(name, str(fields.get("library", family.library)), fields)
        return _build(name, "other", _other(parsed))
    except Exception:  # noqa: BLE001 - last resort; normal names never get here
        return KernelInfo(name=name)


def decode_many(names: Iterable[str]) -> list[KernelInfo]:
    """Decode every name, in order."""
    return [decode_kernel(name) for name in names]
