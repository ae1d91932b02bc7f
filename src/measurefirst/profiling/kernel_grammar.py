"""The grammar every kernel-name family shares: normalising a name (soft-demangling, anonymous
namespaces, the signature split into qualified name and template arguments) and the token helpers with
which the family decoders read element types, tiles, ops and architectures."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

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
_ACC_DTYPE = {"s": "f32", "h": "f16", "d": "f64"}


def _first(tokens: Iterable[str], pattern: re.Pattern[str]) -> str | None:
    for tok in tokens:
        if pattern.match(tok):
            return tok
    return None


_SM_IN_NAME = re.compile(r"(?:arch::|\b|_|[A-Za-z])[Ss][Mm]_?(\d{2,3})[a-z]?(?=\b|_|[A-Z<>,])")


def _arch_from_text(text: str) -> str | None:
    m = _SM_IN_NAME.search(text)
    return f"sm{m.group(1)}" if m else None
