"""Kernel-name families of CUTLASS: the 2.x and 3.x procedural names (and CUTLASS inside cuDNN), and the
C++ templates (``cutlass::device_kernel<...>``)."""

from __future__ import annotations

import re

from .kernel_grammar import (_ACC_DTYPE, _arch_from_text, _cpp_dtype, _Fields, _first, _GEMM_LAYOUT, _keyword_op,
                             _Name, _TILE2, _TILE3, _type_token)


_CUTLASS2 = re.compile(r"\bcutlass_(?:(\d{2,3})_)?((?:wmma_)?(?:sp)?tensorop|simt|wmma)_(\w+)")
_CUTLASS_CORE = re.compile(
    r"(?P<acc>gc|[shdicz])?(?P<inst>\d{3,6})?(?P<itype>tf32|bf16|f16|f32|s8|u8|s4|u4|e4m3|e5m2)?"
    r"(?P<kind>gemm|gemv|fprop|dgrad|wgrad|deconv|conv\w*|trmm|symm|syrk|herk|syr2k|her2k|rank2k|rankk)\Z")
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
