import os
import tempfile

import pytest
import torch

# Tests never write the default results store into the working tree.
os.environ["MEASUREFIRST_STORE"] = os.path.join(tempfile.mkdtemp(prefix="mf-tests-"), "results.db")


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)
