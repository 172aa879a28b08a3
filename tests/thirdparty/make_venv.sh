#!/usr/bin/env bash
# Builds the third-party virtualenv (README.md): the floor's pins, xnd from this checkout without
# its dependencies, and GluonNLP 0.10.0 and GluonTS 0.13.9 (its MXNet extra, less `mxnet`: xnd is
# `mxnet`) with their own dependencies; with --bench also keras-mxnet 2.2.4.3 and pillow, which
# only benchmarks/real_code uses (CI's stage leaves them out).
#   tests/thirdparty/make_venv.sh [--bench] VENV          a fresh venv at VENV with xnd
#   tests/thirdparty/make_venv.sh [--bench] --libs PYTHON the libraries only, into PYTHON's
#                                                         environment (the MXNet 1.9.1 oracle)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bench=0
if [ "${1:-}" = "--bench" ]; then bench=1; shift; fi
PINS=('numpy==1.23.5' 'jax==0.4.30' 'jaxlib==0.4.30')
# GluonTS 0.13.9's dependencies, from its metadata; pandas < 2.2: 0.13's frequency tables
# predate pandas 2.2's renamed aliases ('H' -> 'h' raises "invalid frequency")
GLUONTS_DEPS=('pandas==2.1.4' 'pydantic~=1.7' 'tqdm~=4.23' 'toolz~=0.10' 'typing-extensions~=4.0')
KERAS_DEPS=('six' 'pyyaml' 'h5py' 'keras-applications>=1.0.6' 'keras-preprocessing>=1.0.5'
            'scipy' 'pillow')

libs() {  # $1: a python
    "$1" -m pip install -q cython wheel 'numpy==1.23.5' "${GLUONTS_DEPS[@]}"
    # gluonnlp is an sdist with one Cython extension, built against the numpy installed above
    "$1" -m pip install -q --no-build-isolation gluonnlp==0.10.0
    # --no-deps: its `mxnet` requirement is met by xnd (or by the oracle's own MXNet)
    "$1" -m pip install -q --no-deps gluonts==0.13.9
    if [ "$bench" = 1 ]; then
        "$1" -m pip install -q "${KERAS_DEPS[@]}"
        "$1" -m pip install -q --no-deps keras-mxnet==2.2.4.3
    fi
}

if [ "${1:-}" = "--libs" ]; then
    libs "$2"
    exit 0
fi
venv="$1"
python3 -m venv --clear "$venv"
"$venv/bin/python" -m pip install -q "${PINS[@]}" pytest
"$venv/bin/python" -m pip install -q --no-deps -e "$root"
libs "$venv/bin/python"
