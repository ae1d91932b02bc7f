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
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)
