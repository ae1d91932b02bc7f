import pytest
import torch

from measurefirst import DeviceError, available_devices, resolve_device
from measurefirst.devices import _parse_size, cpu_llc_bytes, environment


def test_auto_and_cpu():
    assert resolve_device("cpu") == torch.device("cpu")
    auto = resolve_device("auto")
    if torch.cuda.is_available():
        assert auto.type == "cuda"
    else:
        assert auto.type in ("mps", "cpu")
    assert resolve_device(None) == auto
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error on a machine without CUDA")
def test_unavailable_device_lists_the_available_ones():
    with pytest.raises(DeviceError, match="available: cpu"):
        resolve_device("cuda:1")


def test_unknown_device_string():
    with pytest.raises(DeviceError, match="unknown device"):
        resolve_device("gpu-please")
    with pytest.raises(TypeError):
        resolve_device(3)  # type: ignore[arg-type]


def test_available_devices_starts_with_cpu():
    assert available_devices()[0] == "cpu"


def test_environment_records_what_ran_where():
    env = environment(torch.device("cpu"))
    for key in ("device_name", "torch_version", "cuda_version", "cpu_model", "torch_num_threads",
                "python_version", "hostname", "timestamp"):
        assert key in env
    assert env["torch_version"] == torch.__version__


def test_cache_size_parsing():
    assert _parse_size("32K") == 32 * 1024
    assert _parse_size("32768K") == 32 * 1024 * 1024
    assert cpu_llc_bytes() > 0
