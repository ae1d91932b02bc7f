"""Kernel-name families of NVIDIA's closed libraries: cuBLASLt's nvjet and namespaced kernels, XMMA
(cuBLAS/cuDNN), the generation-prefixed cuBLAS/cuDNN kernels, other cuDNN kernels and cuBLAS's helpers."""

from __future__ import annotations

import re

from .kernel_grammar import (_ACC_DTYPE, _ARCH_OF_GENERATION, _cpp_dtype, _Fields, _first, _keyword_op, _Name,
                             _TC_DTYPES, _TILE2, _type_token)


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
