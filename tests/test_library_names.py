"""The mxnet names GluonNLP 0.10.0 and GluonTS 0.13.9 import (and stopped at) give what MXNet
1.9.1's give (goldens/library_names, made by make_library_names_goldens.py)."""
import pytest

import xnd as mx
from golden_files import read
from library_names_cases import run_all

META, _ = read("library_names")
RESULT = run_all(mx)


@pytest.mark.parametrize("key", sorted(META))
def test_name_matches_mxnet(key):
    assert RESULT[key] == META[key]
