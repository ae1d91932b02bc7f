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

__all__ = ["DTYPES", "GPU_FAMILIES", "KernelInfo", "LIBRARIES", "OPS", "decode_kernel", "decode_many", "gpu_family"]

#: Only this many leading characters of a name are analysed (the full name is kept in the result).
MAX_ANALYSED_CHARS = 16384


# ----------------------------------------------------------------------------------------------
# Normalising and splitting a name


@dataclass(frozen=True)
class _Name:
    raw: str        # the name as given, stripped and capped
    text: str       # normalised: soft-demangled, anonymous namespaces renamed, no leading "void "
    qualified: str  # qualified function name, without template arguments or parameters
    base: str       # last component of ``qualified``
    targs: str      # the function's top-level template arguments ("" if none)


_ANON = re.compile(r"\(anonymous namespace\)|<unnamed>|\banonymous namespace\b|\b_GLOBAL__N_\w*")
_VOID = re.compile(r"^(?:__global__\s+)?void\s+")
_DIGITS = re.compile(r"\d+")
_SUBST = re.compile(r"S[0-9A-Z]*_")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _soft_demangle(s: str) -> str:
    """``_ZN2at6native18elementwise_kernelI...`` -> ``at::native::elementwise_kernel<ids...>``.

    Only identifiers survive (builtin types such as ``f`` for float are lost), which is enough to
    recognise a family without pretending to know the element type.
    """
    nested = s.startswith("_ZN")
    pos = 3 if nested else 2
    while nested and pos < len(s) and s[pos] in "KVr":
        pos += 1
    qual: list[str] = []
    while pos < len(s):
        m = _DIGITS.match(s, pos)
        if m is None:
            sub = _SUBST.match(s, pos) if nested else None
            if sub is None:
                break
            pos = sub.end()
            continue
        n = int(m.group())
        ident = s[m.end():m.end() + n]
        if n == 0 or len(ident) < n or not _IDENT.match(ident):
            break
        qual.append(ident)
        pos = m.end() + n
        if not nested:
            break
    rest: list[str] = []
    while pos < len(s) and len(rest) < 256:
        m = _DIGITS.match(s, pos)
        if m is None:
            pos += 1
            continue
        n = int(m.group())
        ident = s[m.end():m.end() + n]
        if 0 < n == len(ident) and _IDENT.match(ident):
            rest.append(ident)
            pos = m.end() + n
        else:
            pos = m.end()
    if not qual:
        return s
    return "::".join(qual) + (f"<{', '.join(rest)}>" if rest else "")


def _split_signature(text: str) -> tuple[str, str]:
    """Return (qualified function name, its template arguments) of a demangled C++ name."""
    head: list[str] = []
    angle = 0
    start = -1
    targs = ""
    for i, ch in enumerate(text):
        if ch == "<":
            if angle == 0:
                start = i + 1
            angle += 1
        elif ch == ">":
            if angle > 0:
                angle -= 1
                if angle == 0:
                    targs = text[start:i]
        elif angle == 0:
            if ch == "(":
                if "".join(head).strip():
                    break  # the parameter list
                continue
            head.append(ch)
    else:
        if angle > 0 and start >= 0:  # truncated name: keep what there is
            targs = text[start:]
    tokens = "".join(head).split()
    qualified = tokens[-1] if tokens else ""
    return qualified, targs


def _parse(name: str) -> _Name:
    raw = name.strip()[:MAX_ANALYSED_CHARS]
    text = raw
    if text.startswith("_Z"):
        text = _soft_demangle(text)
    text = _VOID.sub("", _ANON.sub("anonymous_namespace", text))
    qualified, targs = _split_signature(text)
    base = qualified.rsplit("::", 1)[-1]
    return _Name(raw=raw, text=text, qualified=qualified, base=base, targs=targs)


# ----------------------------------------------------------------------------------------------
# Shared helpers

_Fields = dict[str, object]

_TILE2 = re.compile(r"\d+x\d+\Z")
_TILE3 = re.compile(r"\d+x\d+x\d+\Z")
_GEMM_LAYOUT = re.compile(r"[nt]{2,3}\Z")

# Element-type tokens used by CUTLASS, cuBLAS and XMMA names. A value of None marks a type
# token that is not one of DTYPES (integers wider than 8 bits, complex, fp4/fp6, ...).
_TOKEN_DTYPE: dict[str, str | None] = {
    "f16": "f16", "fp16": "f16", "half": "f16", "bf16": "bf16", "tf32": "tf32",
    "f32": "f32", "fp32": "f32", "f64": "f64", "fp64": "f64",
    "e4m3": "fp8", "e5m2": "fp8", "fe4m3": "fp8", "fe5m2": "fp8", "f8": "fp8", "fp8": "fp8",
    "s8": "int8", "i8": "int8", "int8": "int8",
    "u8": None, "s4": None, "u4": None, "b1": None, "s16": None, "u16": None, "s32": None,
    "u32": None, "i32": None, "int32": None, "s64": None, "u64": None, "int4": None,
    "cf16": None, "cbf16": None, "cf32": None, "cf64": None, "ctf32": None, "c32": None, "c64": None,
    "e2m1": None, "e3m2": None, "e2m3": None, "ue8m0": None, "ue4m3": None, "void": None,
}


def _type_token(tok: str) -> tuple[bool, str | None]:
    """(is this an element-type token, the dtype it means). Handles block-scaled ``ue8m0xe4m3``."""
    tok = tok.lower()
    if tok in _TOKEN_DTYPE:
        return True, _TOKEN_DTYPE[tok]
    if "x" in tok:
        parts = tok.split("x")
        if len(parts) == 2 and all(p in _TOKEN_DTYPE for p in parts):
            return True, _TOKEN_DTYPE[parts[1]]
    return False, None


_CPP_TYPE = re.compile(
    r"(?P<cplx>c10::complex<|thrust::complex<|cutlass::complex<|cuComplex\b|cuDoubleComplex\b"
    r"|\bfloat2\b|\bdouble2\b|\bcomplex<)"
    r"|(?P<fp8>c10::Float8_e\w+|__nv_fp8\w*|cutlass::float_e[45]m[23]_t|cutlass::float_ue8m0_t"
    r"|\bfloat8_e\w+)"
    r"|(?P<bf16>c10::BFloat16|__nv_bfloat16\b|cutlass::bfloat16_t|\bnv_bfloat16\b|\bbfloat16\b"
    r"|\bhip_bfloat16\b)"
    r"|(?P<f16>c10::Half\b|__half\b|cutlass::half_t|\bhalf\b)"
    r"|(?P<tf32>cutlass::tfloat32_t)"
    r"|(?P<f64>\bdouble\b)"
    r"|(?P<f32>\bfloat\b)"
    r"|(?P<int8>\bint8_t\b|\bsigned char\b|c10::qint8\b)")


def _cpp_dtype(text: str) -> str | None:
    """The first element type named in C++ template text (None if none, or if it is complex)."""
    m = _CPP_TYPE.search(text)
    if m is None or m.lastgroup == "cplx":
        return None
    return m.lastgroup


_KEYWORD_OPS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (op, re.compile(pattern, re.IGNORECASE)) for op, pattern in (
        ("collective", r"all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|sendrecv|send_recv"
                       r"|broadcast|\bnccl|rccl|cross_device_reduce"),
        ("attention", r"attention|attn|fmha|(?:^|_)mha(?:_|$)|sdpa"),
        ("softmax", r"softmax"),
        ("norm", r"norm(?!al)|(?:^|[_:])bn_"),
        ("conv", r"conv(?!ert)|winograd|fprop|dgrad|wgrad|implicit_?gemm|im2col|col2im"),
        ("gemv", r"gemv"),
        ("gemm", r"gemm|matmul|(?:^|_)b?mm(?:_|$)"),
        ("memcpy", r"memcpy"),
        ("memset", r"memset"),
        ("reduction", r"reduc|(?:^|_)(?:sum|mean|argmax|argmin)(?:_|$)"),
        ("elementwise", r"elementwise|pointwise|eltwise|op_tensor"),
    ))


def _keyword_op(*texts: str) -> str:
    """Op from plain keywords, trying each text in turn; "other" when nothing matches."""
    for text in texts:
        if not text:
            continue
        for op, pattern in _KEYWORD_OPS:
            if pattern.search(text):
                return op
    return "other"


_ARCH_OF_GENERATION = {"kepler": "sm35", "maxwell": "sm50", "pascal": "sm60", "volta": "sm70",
                       "turing": "sm75", "ampere": "sm80", "ada": "sm89", "hopper": "sm90",
                       "blackwell": "sm100"}
_TC_DTYPES = ("f16", "bf16", "tf32", "fp8", "int8")


def _first(tokens: Iterable[str], pattern: re.Pattern[str]) -> str | None:
    for tok in tokens:
        if pattern.match(tok):
            return tok
    return None


# ----------------------------------------------------------------------------------------------
# Family extractors. Each takes the parsed name and the detector's match, and returns the fields
# it can read, or None to pass the name on to the next family.


_MEM_ACTIVITY = re.compile(r"^\[?\s*(?:CUDA\s+)?mem(cpy|set)\b", re.IGNORECASE)
_CUDA_API = re.compile(r"^cu(?:da)?[A-Z]\w*$")


def _cuda_runtime(n: _Name, m: re.Match[str]) -> _Fields | None:
    activity = _MEM_ACTIVITY.match(n.raw)
    if activity:
        return {"op": "mem" + activity.group(1).lower()}
    lowered = n.raw.lower()
    op = "memcpy" if "memcpy" in lowered else "memset" if "memset" in lowered else "other"
    return {"op": op}


_NCCL_DTYPE: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), dtype) for pattern, dtype in (
        (r"(?:^|_)(?:__nv_)?(?:bfloat16|bf16)(?:_|$)", "bf16"),
        (r"(?:^|_)f8e[45]m[23](?:_|$)|(?:^|_)fp8", "fp8"),
        (r"(?:^|_)(?:f16|half)(?:_|$)", "f16"),
        (r"(?:^|_)(?:f32|float)(?:_|$)", "f32"),
        (r"(?:^|_)(?:f64|double)(?:_|$)", "f64"),
        (r"(?:^|_)(?:i8|int8_t)(?:_|$)", "int8"),
    ))


def _nccl(n: _Name, m: re.Match[str]) -> _Fields | None:
    head = n.base or n.raw
    dtype = next((d for pattern, d in _NCCL_DTYPE if pattern.search(head)), None)
    return {"op": "collective", "dtype": dtype}


_TRITON_KINDS = {"poi": "elementwise", "red": "reduction", "per": "reduction", "tem": "gemm",
                 "for": "elementwise", "spl": "other", "sca": "other", "unk": "other"}
# ATen op names with underscores inside, joined back when splitting Inductor kernel names.
_ATEN_MULTIWORD = frozenset({
    "native_layer_norm", "native_layer_norm_backward", "native_batch_norm",
    "native_batch_norm_backward", "native_group_norm", "native_group_norm_backward",
    "_native_batch_norm_legit", "_native_batch_norm_legit_functional",
    "_native_batch_norm_legit_no_training", "native_dropout", "native_dropout_backward",
    "_to_copy", "_softmax", "_log_softmax", "_softmax_backward_data", "_log_softmax_backward_data",
    "log_softmax", "layer_norm", "group_norm", "batch_norm", "rms_norm", "_fused_rms_norm",
    "masked_fill", "index_put", "_unsafe_index_put", "_unsafe_index", "index_add", "index_select",
    "index_copy", "lift_fresh", "lift_fresh_copy", "embedding_dense_backward", "convolution_backward",
    "scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
    "flex_attention", "flex_attention_backward", "_unsafe_view", "constant_pad_nd", "avg_pool2d",
    "avg_pool2d_backward", "max_pool2d_with_indices", "max_pool2d_with_indices_backward",
    "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward", "adaptive_avg_pool2d",
    "upsample_nearest2d", "upsample_bilinear2d", "_upsample_nearest_exact2d", "select_backward",
    "slice_backward", "select_scatter", "slice_scatter", "as_strided", "as_strided_scatter",
    "threshold_backward", "gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward",
    "hardtanh_backward", "leaky_relu_backward", "nll_loss_forward", "nll_loss_backward",
    "nll_loss2d_forward", "nll_loss2d_backward", "var_mean", "clamp_min", "clamp_max",
    "split_with_sizes", "scatter_add", "scatter_reduce", "bitwise_and", "bitwise_or",
    "bitwise_not", "bitwise_xor", "logical_and", "logical_or", "logical_not", "zeros_like",
    "ones_like", "full_like", "empty_like", "new_zeros", "new_ones", "new_empty", "scalar_tensor",
    "full_default", "_scaled_mm", "diagonal_copy", "permute_copy", "view_copy", "expand_copy",
    "reflection_pad2d", "replication_pad2d", "_weight_norm_interface", "cross_entropy",
    "_prims_common", "convert_element_type",
})
_TRITON_INDEX = re.compile(r"\d[0-9de]*\Z")
_SOFTMAX_OP = re.compile(r"softmax")
_NORM_OP = re.compile(r"(?:^|_)(?:layer|batch|group|rms|instance)_norm|native_\w*norm|_norm_legit")


def _triton_ops(tokens: list[str]) -> tuple[str, ...]:
    ops: list[str] = []
    i = 0
    while i < len(tokens):
        underscores = 0
        while i < len(tokens) and tokens[i] == "":
            underscores += 1
            i += 1
        if i >= len(tokens):
            break
        prefix = "_" * underscores
        for width in range(min(6, len(tokens) - i), 1, -1):
            candidate = prefix + "_".join(tokens[i:i + width])
            if "" not in tokens[i:i + width] and candidate in _ATEN_MULTIWORD:
                ops.append(candidate)
                i += width
                break
        else:
            ops.append(prefix + tokens[i])
            i += 1
    return tuple(ops)


def _triton(n: _Name, m: re.Match[str]) -> _Fields | None:
    rest = n.base[len("triton_"):] if n.base.startswith("triton_") else n.text[len("triton_"):]
    tokens = rest.split("_")
    kind = tokens.pop(0) if tokens and tokens[0] in _TRITON_KINDS else None
    fused = bool(tokens) and tokens[0] == "fused"
    if fused:
        tokens.pop(0)
    while tokens and _TRITON_INDEX.match(tokens[-1]):
        tokens.pop()
    ops = _triton_ops(tokens) if fused else ()
    joined = "_".join(ops)
    if kind is None:
        op = _keyword_op(rest)
    elif kind == "tem":
        if any("attention" in o or "sdpa" in o for o in ops):
            op = "attention"
        elif any(o.startswith("convolution") for o in ops):
            op = "conv"
        else:
            op = "gemm"
    else:
        op = _TRITON_KINDS[kind]
        if any(_SOFTMAX_OP.search(o) for o in ops):
            op = "softmax"
        elif _NORM_OP.search(joined) or any(_NORM_OP.search(o) for o in ops):
            op = "norm"
    return {"op": op, "fused_ops": ops}


_SM_IN_NAME = re.compile(r"(?:arch::|\b|_|[A-Za-z])[Ss][Mm]_?(\d{2,3})[a-z]?(?=\b|_|[A-Z<>,])")


def _arch_from_text(text: str) -> str | None:
    m = _SM_IN_NAME.search(text)
    return f"sm{m.group(1)}" if m else None


def _flash(n: _Name, m: re.Match[str]) -> _Fields | None:
    return {"op": "attention", "tensor_cores": True, "arch": _arch_from_text(n.text),
            "dtype": _cpp_dtype(n.targs or n.text)}


_FMHA = re.compile(r"fmha_cutlass[FB]_(bf16|f16|f32)_(?:not)?aligned_(\d+x\d+)(?:_k\d+)?"
                   r"(?:_(?:rf|gmem|seqaligned|dropout|causal))*_sm(\d+)")


def _mem_efficient(n: _Name, m: re.Match[str]) -> _Fields | None:
    fm = _FMHA.search(n.text)
    if fm:
        dtype: str | None = fm.group(1)
        tile: str | None = fm.group(2)
        arch_num: int | None = int(fm.group(3))
    else:
        dtype = _cpp_dtype(n.targs or n.text)
        tile = None
        arch = _arch_from_text(n.text)
        arch_num = int(arch[2:]) if arch else None
    tensor_cores: bool | None = None
    if arch_num is not None and dtype is not None:
        if arch_num >= 80:
            tensor_cores = True
        elif arch_num >= 70:
            tensor_cores = dtype in ("f16", "bf16")
        else:
            tensor_cores = False
    return {"op": "attention", "dtype": dtype, "tile": tile,
            "arch": f"sm{arch_num}" if arch_num is not None else None,
            "tensor_cores": tensor_cores}


def _cudnn_sdpa(n: _Name, m: re.Match[str]) -> _Fields | None:
    tokens = n.base.lower().split("_")
    arch = next((t for t in tokens if re.fullmatch(r"sm\d{2,3}", t)), None)
    dtype = "fp8" if any(t in ("fp8", "e4m3", "e5m2", "f8") for t in tokens) else None
    return {"op": "attention", "arch": arch, "dtype": dtype, "tile": _first(tokens, _TILE3),
            "tensor_cores": True}


_NVJET_LETTER = {"h": "f16", "t": "bf16", "s": "f32", "q": "fp8"}
_NVJET_LAYOUT = re.compile(r"[TN]{3}\Z")


def _nvjet(n: _Name, m: re.Match[str]) -> _Fields | None:
    tokens = n.base.split("_")[1:]
    arch = None
    if tokens and re.fullmatch(r"sm\d{2,3}", tokens[0]):
        arch = tokens.pop(0)
    types = tokens[0] if tokens and re.fullmatch(r"[a-z]{3,6}", tokens[0]) else ""
    tf32 = "tf32" in tokens
    dtype = "tf32" if tf32 else _NVJET_LETTER.get(types[:1]) if types else None
    layout = next((t for t in reversed(tokens) if _NVJET_LAYOUT.match(t)), None)
    tensor_cores: bool | None = None if (types == "sss" and not tf32) else True
    return {"op": "gemm", "arch": arch, "dtype": dtype, "tile": _first(tokens, _TILE2),
            "layout": layout, "tensor_cores": tensor_cores}


def _cublaslt_namespace(n: _Name, m: re.Match[str]) -> _Fields | None:
    if "splitkreduce" in n.base.lower():
        return {"op": "gemm"}  # the reduction half of a split-K GEMM; its template types are mixed
    return {"op": _keyword_op(n.base, n.qualified), "dtype": _cpp_dtype(n.targs)}


_XMMA = re.compile(r"^sm(\d{2,3})_xmma_(\w+)")
_XMMA_TYPES = re.compile(r"(?:bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|i8|u8|s32|i32|f8){2}\Z")
_XMMA_TYPE_PART = re.compile(r"bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|i8|u8|s32|i32|f8")
_XMMA_CONV = re.compile(r"(?:^|_)(?:fprop|dgrad|wgrad|conv\w*|implicit)(?:_|$)")
_XMMA_TC = re.compile(r"tensor\d+x\d+x\d+|warpgroupsize|gmma|hmma|imma|dmma")


def _xmma(n: _Name, m: re.Match[str]) -> _Fields | None:
    rest = m.group(2).lower()
    tokens = rest.split("_")
    type_tokens = [t for t in tokens if _XMMA_TYPES.match(t)]
    dtype: str | None = None
    if len(type_tokens) > 1 and "tf32" in type_tokens[1]:
        dtype = "tf32"
    elif type_tokens:
        part = _XMMA_TYPE_PART.match(type_tokens[0])
        dtype = _type_token(part.group())[1] if part else None
    tile_m = re.search(r"tilesize(\d+x\d+x\d+)", rest)
    conv = bool(_XMMA_CONV.search(rest))
    cudnn = conv or rest.endswith("cudnn")
    if "ffma" in tokens or "ff" in tokens:
        tensor_cores: bool | None = False
    elif _XMMA_TC.search(rest) or dtype in _TC_DTYPES:
        tensor_cores = True
    else:
        tensor_cores = None
    library = "cudnn" if cudnn else "cublasLt" if "cublaslt" in rest else "cublas"
    op = "conv" if conv else "gemv" if tokens[0] == "gemv" else "gemm" if "gemm" in tokens[0] \
        else _keyword_op(rest)
    return {"library": library, "op": op, "arch": f"sm{m.group(1)}", "dtype": dtype,
            "tile": tile_m.group(1) if tile_m else None,
            "layout": _first(tokens, re.compile(r"[nt]{2}\Z")), "tensor_cores": tensor_cores}


_CUTLASS2 = re.compile(r"\bcutlass_(?:(\d{2,3})_)?((?:wmma_)?(?:sp)?tensorop|simt|wmma)_(\w+)")
_CUTLASS_CORE = re.compile(
    r"(?P<acc>gc|[shdicz])?(?P<inst>\d{3,6})?(?P<itype>tf32|bf16|f16|f32|s8|u8|s4|u4|e4m3|e5m2)?"
    r"(?P<kind>gemm|gemv|fprop|dgrad|wgrad|deconv|conv\w*|trmm|symm|syrk|herk|syr2k|her2k|rank2k|rankk)\Z")
_ACC_DTYPE = {"s": "f32", "h": "f16", "d": "f64"}
_CONV_KINDS = ("fprop", "dgrad", "wgrad", "deconv", "conv")


def _kind_op(kind: str) -> str:
    if kind.startswith(_CONV_KINDS):
        return "conv"
    return "gemv" if kind == "gemv" else "gemm"


def _parse_cutlass2(m: re.Match[str]) -> _Fields:
    arch = f"sm{m.group(1)}" if m.group(1) else None
    tensor_cores = "simt" not in m.group(2)
    tokens = m.group(3).split("_")
    core_i = next((i for i, t in enumerate(tokens) if _CUTLASS_CORE.match(t)), None)
    if core_i is None:
        return {"arch": arch, "tensor_cores": tensor_cores, "op": _keyword_op(m.group(3))}
    core = _CUTLASS_CORE.match(tokens[core_i])
    assert core is not None
    after = tokens[core_i + 1:]
    tile_i = next((i for i, t in enumerate(after) if _TILE2.match(t)), len(after))
    a_type = next((_type_token(t) for t in after[:tile_i] if _type_token(t)[0]), None)
    if core.group("itype"):
        dtype = _type_token(core.group("itype"))[1]
    elif a_type is not None:
        dtype = a_type[1]
    elif core.group("acc") == "i":
        dtype = "int8"
    else:
        dtype = _ACC_DTYPE.get(core.group("acc") or "")
    return {"op": _kind_op(core.group("kind")), "arch": arch, "dtype": dtype,
            "tile": after[tile_i] if tile_i < len(after) else None,
            "layout": _first(after[tile_i:], _GEMM_LAYOUT), "tensor_cores": tensor_cores}


def _cutlass2(n: _Name, m: re.Match[str]) -> _Fields | None:
    return _parse_cutlass2(m)


def _cudnn_cutlass(n: _Name, m: re.Match[str]) -> _Fields | None:
    inner = _CUTLASS2.search(n.text, m.end())
    if inner:
        fields = _parse_cutlass2(inner)
    else:
        fields = {"op": _keyword_op(n.text), "dtype": _cpp_dtype(n.targs)}
    fields["library"] = "cudnn"
    return fields


_CUTLASS3_CORE = re.compile(
    r"(?P<acc>[shdicz])?(?:\d+x\d+x\d+)?(?P<itype>tf32|bf16|f16|f32)?"
    r"(?P<kind>gemm|gemv|fprop|dgrad|wgrad|deconv|conv\w*|trmm|symm|syrk|herk|rank2k|rankk)\Z")


def _cutlass3(n: _Name, m: re.Match[str]) -> _Fields | None:
    arch = re.sub(r"a$", "", m.group(1))
    tokens = m.group(2).split("_")
    opclass = tokens[0] if tokens else ""
    tensor_cores: bool | None = True if "tensorop" in opclass else False if "simt" in opclass \
        else None
    core_i = next((i for i, t in enumerate(tokens) if _CUTLASS3_CORE.match(t)), None)
    if core_i is None:
        return {"arch": arch, "tensor_cores": tensor_cores, "op": _keyword_op(m.group(2))}
    core = _CUTLASS3_CORE.match(tokens[core_i])
    assert core is not None
    after = tokens[core_i + 1:]
    tile_i = next((i for i, t in enumerate(after) if _TILE3.match(t)), len(after))
    a_type = next((_type_token(t) for t in after[:tile_i] if _type_token(t)[0]), None)
    if core.group("itype") == "tf32":
        dtype: str | None = "tf32"
    elif a_type is not None:
        dtype = a_type[1]
    else:
        dtype = _ACC_DTYPE.get(core.group("acc") or "")
    return {"op": _kind_op(core.group("kind")), "arch": arch, "dtype": dtype,
            "tile": after[tile_i] if tile_i < len(after) else None,
            "layout": _first(after[tile_i:], _GEMM_LAYOUT), "tensor_cores": tensor_cores}


_LEGACY = re.compile(r"^(?:cudnn_(?:[a-z]+_){1,2}?)?(kepler|maxwell|pascal|volta|turing|ampere|ada"
                     r"|hopper|blackwell)_(\w+)")
_LEGACY_CORE = re.compile(r"(?P<acc>gc|[shdczi])?(?P<inst>\d{3,6})?(?P<kind>gemm|gemv|cudnn)\Z")


def _legacy(n: _Name, m: re.Match[str]) -> _Fields | None:
    tokens = m.group(2).split("_")
    core_i = next((i for i, t in enumerate(tokens) if _LEGACY_CORE.match(t)), None)
    if core_i is None:
        return None
    core = _LEGACY_CORE.match(tokens[core_i])
    assert core is not None
    after = tokens[core_i + 1:]
    tile_i = next((i for i, t in enumerate(after) if _TILE2.match(t)), len(after))
    a_type = next((_type_token(t) for t in after[:tile_i] if _type_token(t)[0]), None)
    acc, inst, kind = core.group("acc") or "", core.group("inst"), core.group("kind")
    if a_type is not None:
        dtype = a_type[1]
    elif acc == "i":
        dtype = "int8"
    elif acc == "s" and inst:
        dtype = None  # an MMA kernel with fp32 accumulation, input type not written
    else:
        dtype = _ACC_DTYPE.get(acc)
    layout = next((t for t in reversed(after) if re.fullmatch(r"[nt]{2}", t)), None)
    return {"library": "cudnn" if kind == "cudnn" else "cublas",
            "op": "conv" if kind == "cudnn" else kind, "arch": _ARCH_OF_GENERATION[m.group(1)],
            "dtype": dtype, "tile": after[tile_i] if tile_i < len(after) else None,
            "layout": layout, "tensor_cores": bool(inst)}


def _cudnn_generic(n: _Name, m: re.Match[str]) -> _Fields | None:
    op = _keyword_op(n.base, n.qualified)
    if op == "other":
        op = _keyword_op(n.text)
    tensor_cores = True if re.search(r"xmma|hmma|imma|tensorop", n.text, re.I) else None
    return {"op": op, "dtype": _cpp_dtype(n.targs), "tensor_cores": tensor_cores}


_CUTLASS_TC = re.compile(r"OpClassTensorOp|OpClassWmmaTensorOp|[GU]MMA|[GU]mma|MMA_Atom"
                         r"|SM\d+_\d+x\d+x\d+")


def _cutlass_template(n: _Name, m: re.Match[str]) -> _Fields | None:
    text = n.text
    if re.search(r"fmha|attention", text, re.I):
        op = "attention"
    elif re.search(r"conv(?!ert)", text, re.I):
        op = "conv"
    elif re.search(r"gemv", text, re.I):
        op = "gemv"
    elif re.search(r"gemm", text, re.I):
        op = "gemm"
    elif re.search(r"reduction::|reduce", text, re.I):
        op = "reduction"
    else:
        op = "other"
    tensor_cores: bool | None = True if _CUTLASS_TC.search(text) else \
        False if "OpClassSimt" in text else None
    return {"op": op, "arch": _arch_from_text(text), "dtype": _cpp_dtype(n.targs),
            "tensor_cores": tensor_cores}


_CUBLAS_NAMES = re.compile(
    r"(?:^|::)(?:gemv2[TN]_kernel\w*|gemvx::kernel|gemvNSP_kernel\w*|gemmk1_kernel\w*"
    r"|gemmSN_\w*kernel\w*|fermiPlus\w*|kepler_\w*gemm\w*)\Z")


def _cublas_misc(n: _Name, m: re.Match[str]) -> _Fields | None:
    q = n.qualified.lower()
    if "gemv" in q:
        op = "gemv"
    elif "gemm" in q:
        op = "gemm"
    elif re.search(r"(?:^|::|_)(?:dot|nrm2|asum|amax|amin|reduce)", q):
        op = "reduction"
    elif re.search(r"(?:^|::|_)(?:scal|axpy|copy|swap|rot)", q):
        op = "elementwise"
    else:
        op = _keyword_op(n.base, n.qualified)
    return {"op": op, "dtype": _cpp_dtype(n.targs)}


_ATEN_KERNELS = frozenset({
    "vectorized_elementwise_kernel", "unrolled_elementwise_kernel", "elementwise_kernel",
    "elementwise_kernel_with_index", "index_elementwise_kernel", "vectorized_templated_elementwise_kernel",
    "distribution_elementwise_grid_stride_kernel", "reduce_kernel", "softmax_warp_forward",
    "softmax_warp_backward", "cunn_SoftMaxForward", "cunn_SoftMaxForwardSmem", "cunn_SoftMaxBackward",
    "cunn_SpatialSoftMaxForward", "cunn_SpatialSoftMaxBackward", "vectorized_layer_norm_kernel",
    "RowwiseMomentsCUDAKernel", "LayerNormForwardCUDAKernel", "GammaBetaBackwardCUDAKernel",
    "GammaBetaBackwardSimpleCUDAKernel", "layer_norm_grad_input_kernel",
    "layer_norm_grad_input_kernel_vectorized", "batch_norm_collect_statistics_kernel",
    "batch_norm_transform_input_kernel", "batch_norm_backward_kernel",
    "batch_norm_backward_reduce_kernel", "batch_norm_backward_elemt_kernel",
    "CatArrayBatchedCopy", "CatArrayBatchedCopy_contig", "CatArrayBatchedCopy_aligned16_contig",
    "CatArrayBatchedCopy_alignedK_contig", "CatArrayBatchedCopy_vectorized",
    "multi_tensor_apply_kernel", "indexSelectSmallIndex", "indexSelectLargeIndex",
    "indexFuncSmallIndex", "indexFuncLargeIndex", "indexing_backward_kernel", "radixSortKVInPlace",
    "bitonicSortKVInPlace", "gatherTopK", "fused_dropout_kernel", "fused_dropout_kernel_vec",
    "triu_tril_kernel", "embedding_backward_feature_kernel", "nll_loss_forward_reduce_cuda_kernel_2d",
    "nll_loss_backward_reduce_cuda_kernel_2d", "cunn_ClassNLLCriterion_updateOutput_kernel",
    "max_pool_forward_nchw", "max_pool_backward_nchw", "avg_pool2d_out_cuda_frame",
    "upsample_bilinear2d_out_frame", "upsample_nearest2d_out_frame", "im2col_kernel", "col2im_kernel",
})
_ATEN_NAMESPACE = re.compile(r"^(?:at|at_cuda_detail|caffe2)::")
_ATEN_OPS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (op, re.compile(pattern, re.IGNORECASE)) for op, pattern in (
        ("softmax", r"softmax"),
        ("norm", r"layer_?norm|batch_?norm|group_?norm|rms_?norm|RowwiseMoments|GammaBeta"
                 r"|ComputeInternalGradients|weight_norm"),
        ("elementwise", r"elementwise|CatArrayBatchedCopy|multi_tensor_apply|index(?:Select|Func|ing)"
                        r"|fused_dropout|triu_tril|upsample|copy|fill|im2col|col2im"),
        ("reduction", r"reduce|nll_loss|NLLCriterion|(?:^|_)(?:sum|mean)(?:_|$)"),
    ))


def _pytorch(n: _Name, m: re.Match[str]) -> _Fields | None:
    op = next((o for o, pattern in _ATEN_OPS if pattern.search(n.base)), None)
    if op is None:
        op = _keyword_op(n.base)
    return {"op": op, "dtype": _cpp_dtype(n.targs)}


def _other(n: _Name) -> _Fields:
    return {"op": _keyword_op(n.base, n.qualified)}


# ----------------------------------------------------------------------------------------------
# The family table. Order matters: the first family whose detector matches and whose extractor
# does not decline wins.

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
