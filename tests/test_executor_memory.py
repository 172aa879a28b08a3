"""Executor.debug_str's "Total N MB allocated" line (MXNet's test_zero_prop reads it): xnd's
estimate of the values a forward and backward compute, checked against hand counts."""
import re

import pytest

import xnd as mx

MB = 1 << 20


def _cube():
    d = mx.sym.var("data")
    return (d * d) * d


@pytest.mark.parametrize("make,req,want", [
    # forward: two products of 4 MB; backward: each product's two input gradients
    (_cube, "write", (2 + 2 + 2) * 4 * MB),
    (_cube, "null", 2 * 4 * MB),
    # nothing flows back through BlockGrad, which shares its input ("zero_prop")
    (lambda: mx.sym.BlockGrad(_cube()), "write", 2 * 4 * MB),
    # a reshape shares its input too; the gradient passes through it
    (lambda: mx.sym.reshape(mx.sym.var("data") * 2, shape=(-1,)), "write", (1 + 1 + 1) * 4 * MB),
])
def test_memory_estimate_counts_outputs_and_gradients_that_flow(make, req, want):
    exe = make().simple_bind(mx.cpu(), data=(1024, 1024), grad_req=req)
    assert exe.memory_estimate() == want
    line = re.search(r"Total (\d+) MB allocated", exe.debug_str())
    assert int(line.group(1)) == want // MB


def test_only_differentiated_arguments_count():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    exe = (a * b).simple_bind(mx.cpu(), a=(256, 1024), b=(256, 1024),
                             grad_req={"a": "write", "b": "null"})
    assert exe.memory_estimate() == 2 * MB        # the product, and a's gradient
