import os
import tempfile

import pytest
import torch

# Tests never write the default results store into the working tree.
os.environ["MEASUREFIRST_STORE"] = os.path.join(tempfile.mkdtemp(prefix="mf-tests-"), "results.db")
# ...nor read the developer's noise profile (measurefirst selfcheck --noise): none unless a test writes one.
os.environ["MEASUREFIRST_PROFILE"] = os.path.join(tempfile.mkdtemp(prefix="mf-tests-"), "noise-profile.json")
# The command line speaks the locale's language unless --lang says otherwise: tests read English unless
# they ask for Chinese, whatever the machine's locale.
os.environ["LC_ALL"] = "C.UTF-8"


def pytest_collection_modifyitems(config, items):
    if config.pluginmanager.hasplugin("xdist"):  # ./test.sh's parallel phase (--dist loadgroup): one worker
        for item in items:                         # drives the browser tests, one Chromium and one site build
            if "browser" in item.keywords:
                item.add_marker(pytest.mark.xdist_group("chromium"))
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


#: torchrun's variables: a test that wants them sets them itself (monkeypatch); none leaks into the next test,
#: where ``launched_by_torchrun()`` would take a one-process command for a rank of a group.
TORCHRUN_ENV = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "GROUP_RANK",
                "TORCHELASTIC_RUN_ID")
#: pytest-xdist's variables, set in each worker when the suite itself runs in parallel (./test.sh): a test
#: that runs pytest (in a subprocess or in process) stands for a user's own run, not for a worker of ours
XDIST_ENV = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID")


@pytest.fixture(autouse=True)
def _no_inherited_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in (*TORCHRUN_ENV, *XDIST_ENV):
        monkeypatch.delenv(key, raising=False)
