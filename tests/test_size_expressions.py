"""The size-expression evaluator (--sizes, --flops, --bytes): no expression reaches code, and every
expression finishes at once, however hostile (issue 13, items 5, 9, 11)."""

import importlib
import time

import numpy as np
import pytest

from measurefirst.tools.sweep import ExpressionError, parse_sizes, size_expression, validate_sizes, work_table

sw = importlib.import_module("measurefirst.tools.sweep")  # the module (measurefirst.sweep is the function)

ESCAPES = [
    "__import__('os').system('touch {marker}')",
    "().__class__.__bases__[0].__subclasses__()",
    "n.__class__",
    "n.real",
    "(lambda: open('{marker}', 'w'))()",
    "[open('{marker}', 'w') for _ in [1]]",
    "{{1: 2}}",
    "{{1}}",
    "(1, 2)",
    "f'{{n}}'",
    "'a' * 3",
    "b'x'",
    "(x := 3)",
    "exec('import os')",
    "eval('1')",
    "open('{marker}', 'w')",
    "globals()",
    "getattr(n, 'real')",
    "__builtins__",
    "print(1)",
    "breakpoint()",
    "log(n, base=2)",
    "log(*[n])",
    "sqrt(**{{'x': 4}})",
    "math.log(n)",
    "n if n else 1",
    "n < 2",
    "n and 1",
    "not n",
    "n[0]",
    "1 << 100",
    "n | 1",
    "~n",
    "True",
    "1j",
    "...",
    "None",
    "log",
    "sqrt(1, 2)",
    "lambda n: n",
    "n; import os",
    "import os",
    "yield n",
    "await n",
]


@pytest.mark.parametrize("text", ESCAPES)
def test_escapes_are_refused_and_run_nothing(text, tmp_path):
    marker = tmp_path / "ran"
    expr = text.format(marker=marker)
    with pytest.raises(ValueError) as info:
        size_expression(expr, "flops")(64)
    assert "flops expression" in str(info.value)
    with pytest.raises(ValueError):
        parse_sizes(expr.replace(",", " "))
    assert not marker.exists()


HOSTILE = [
    "9**9**9", "10**10**10", "2**n**2", "(n**64)**64", "exp(exp(10))", "exp(1e6)", "10**400", "1" + "0" * 150,
    "n" + "*n" * 99, "-(" * 150 + "n" + ")" * 150, "2**-100000", "factorial(100000)", "1/0", "n % 0", "n // 0",
    "log(0)", "sqrt(-1)", "log(-n)", "(-8)**(1/3)",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_expressions_fail_at_once_naming_the_expression(text):
    start = time.perf_counter()
    with pytest.raises(ValueError) as info:
        f = size_expression(text, "bytes")
        for n in (1, 64, 4096, 2**30):
            f(n)
    assert time.perf_counter() - start < 0.5  # bounded work: no huge integers, no loops
    assert "bytes expression" in str(info.value)
    assert text[:20] in str(info.value) or "characters long" in str(info.value)


def test_resource_bounds():
    with pytest.raises(ExpressionError, match="characters long"):
        size_expression("n" + "+1" * sw.MAX_EXPRESSION_CHARS)
    with pytest.raises(ExpressionError, match="exponent"):
        size_expression("n**65")(2)
    assert size_expression("n**64")(2) == 2.0**64  # the bound itself is allowed
    with pytest.raises(ExpressionError, match="too large"):
        size_expression("n**20")(10**3)  # 1e60 > MAX_WORK
    with pytest.raises(ValueError, match="at most 1000"):
        parse_sizes("2,3,...,1002")
    assert len(parse_sizes("2,3,...,1001")) == 1000
    assert parse_sizes("1,2,...,1001")[-3:] == [256, 512, 1001]  # doubling: 11 sizes
    with pytest.raises(ValueError, match="at most 1000"):
        parse_sizes(",".join(str(i) for i in range(1, 1002)))
    with pytest.raises(ValueError, match="characters long"):
        parse_sizes("1," * 3000)
    with pytest.raises(ValueError, match="2\\*\\*40"):
        parse_sizes("2**41")
    with pytest.raises(ValueError, match="2\\*\\*40"):
        validate_sizes([2**41])
    start = time.perf_counter()
    with pytest.raises(ValueError):
        parse_sizes("2,3,...,1000000000")  # was: a hang building a billion sizes
    with pytest.raises(ValueError):
        parse_sizes("1,2,...," + "9" * 100)
    assert time.perf_counter() - start < 0.5


def test_sizes_are_whole_and_increasing():
    with pytest.raises(ValueError, match="not a whole number"):
        parse_sizes("64.7,128")  # was: [64, 128]
    with pytest.raises(ValueError, match="below 128"):
        parse_sizes("64,128,...,32")  # was: [64, 128, 32]
    with pytest.raises(ValueError, match="below 128"):
        parse_sizes("64,128,...,100")  # was: [64, 128, 100]
    with pytest.raises(ValueError, match="increase"):
        parse_sizes("128,64,...,1024")
    with pytest.raises(ValueError, match="does not increase"):
        parse_sizes("4096,64,128,...,1024")
    with pytest.raises(ValueError, match="unknown name 'n'"):
        parse_sizes("n,128")
    assert parse_sizes("64,128,...,1000") == [64, 128, 256, 512, 1000]
    assert parse_sizes("1e3,2**11, 3000") == [1000, 2048, 3000]
    assert parse_sizes("8,64,128,...,512") == [8, 64, 128, 256, 512]


def test_numpy_sizes_are_accepted():
    assert validate_sizes(np.array([64, 128])) == [64, 128]  # was: refused
    assert validate_sizes([np.int32(8), np.float64(16.0), 32.0]) == [8, 16, 32]
    assert all(type(x) is int for x in validate_sizes(np.arange(1, 4)))
    with pytest.raises(ValueError, match="positive"):
        validate_sizes([np.int64(0)])
    with pytest.raises(ValueError):
        validate_sizes([True, 2])


def test_errors_name_the_expression_and_the_size():
    with pytest.raises(ValueError, match=r"'1/\(n-64\)' divides by zero at n=64"):
        work_table([64, 128], "1/(n-64)", None)
    with pytest.raises(ValueError, match=r"'log\(n-64\)' cannot be evaluated at n=64: math domain error"):
        work_table([64], None, "log(n-64)")
    with pytest.raises(ValueError, match=">= 0"):
        work_table([64], "-n", None)
    with pytest.raises(ValueError, match="finite number"):
        work_table([64], lambda n: float("nan"), None)


def test_valid_expressions_keep_working():
    assert size_expression("2*n**3")(4) == 128.0
    assert size_expression("n*log2(n) + sqrt(n) - floor(n/3) + ceil(1.5) + log(n, 2) + pi*0 + e*0")(16) == \
        pytest.approx(16 * 4 + 4 - 5 + 2 + 4)
    assert size_expression("12*n**2 // 4 % 7")(10) == (12 * 100 // 4) % 7
