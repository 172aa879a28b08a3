"""The third-party smoke tests run in .ci/run's third-party stage, a virtualenv with GluonNLP
0.10.0 and GluonTS 0.13.9 (README.md). Elsewhere (the main and floor environments, where the
libraries are not installed) this folder is not collected. The stage sets XND_THIRDPARTY=1: then
the folder is always collected, and a library that fails to import fails the stage."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/: golden_files
sys.path.insert(0, HERE)

_REQUIRED = os.environ.get("XND_THIRDPARTY") == "1"
_MISSING = [m for m in ("gluonnlp", "gluonts") if importlib.util.find_spec(m) is None]
collect_ignore_glob = [] if _REQUIRED or not _MISSING else ["test_*.py"]
