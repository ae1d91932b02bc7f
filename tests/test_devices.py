import datetime
import os
import platform
import socket

import pytest
import torch

import measurefirst

from measurefirst import DeviceError, available_devices, resolve_device
from measurefirst.measure.devices import _parse_size, environment, last_level_cache_bytes


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
    assert (env["device"], env["device_type"]) == ("cpu", "cpu")
    assert env["device_name"] == env["cpu_model"] and isinstance(env["cpu_model"], str) and env["cpu_model"]
    assert env["torch_version"] == torch.__version__
    assert env["cuda_version"] == torch.version.cuda  # None on a CPU build
    assert env["torch_num_threads"] == torch.get_num_threads()
    assert env["cpu_count"] == os.cpu_count()
    assert env["python_version"] == platform.python_version()
    assert env["platform"] == platform.platform()
    assert env["hostname"] == socket.gethostname()
    stamp = datetime.datetime.fromisoformat(env["timestamp"])
    assert stamp.tzinfo is not None
    assert abs((datetime.datetime.now(datetime.timezone.utc) - stamp).total_seconds()) < 60
    assert env["measurefirst_version"] == measurefirst.__version__


def test_cache_size_parsing():
    assert _parse_size("32K") == 32 * 1024
    assert _parse_size("32768K") == 32 * 1024 * 1024
    assert last_level_cache_bytes(torch.device("cpu")) > 0
