"""mx.profiler's aggregate statistics (set_config(aggregate_stats=True)): the counts, names
and layout MXNet 1.9.1 reports for the same calls (its 'operator' domain counts sqrt once
and _plus_scalar twice for `sqrt(x); x + 1; x + 1`; a custom operator's Python code is
'<op_type>::pure_python' and the operators it calls '<op_type>::<op>' in 'Custom
Operator'; dumps() sorts by the statistic asked for)."""
import json
from collections import OrderedDict

import pytest

import xnd as mx
from xnd import engine, profiler


@pytest.fixture
def aggregate(tmp_path):
    profiler.set_config(profile_all=True, aggregate_stats=True,
                        filename=str(tmp_path / "profile.json"))
    profiler.set_state("run")
    profiler.dumps(reset=True)
    yield
    profiler.set_state("stop")
    profiler.set_config(aggregate_stats=False)
    profiler.dumps(reset=True)


def test_counts_per_operator(aggregate):
    x = mx.nd.zeros((100, 100))
    mx.nd.sqrt(x)
    x = x + 1
    x = x + 1
    mx.nd.waitall()
    d = json.loads(profiler.dumps(format="json"))
    assert list(d) == ["Time", "Memory", "Unit"]
    assert d["Unit"] == {"Time": "ms", "Memory": "kB"}
    ops = d["Time"]["operator"]
    assert ops["sqrt"]["Count"] == 1 and ops["_plus_scalar"]["Count"] == 2
    assert ops["_zeros"]["Count"] == 1
    row = ops["_plus_scalar"]
    assert sorted(row) == ["Avg", "Count", "Max", "Min", "Total"]
    assert row["Min"] <= row["Avg"] <= row["Max"] and row["Total"] == pytest.approx(2 * row["Avg"])


def test_reset_and_the_stopped_state(aggregate):
    mx.nd.sqrt(mx.nd.ones((2,)))
    assert "sqrt" in json.loads(profiler.dumps(format="json", reset=True))["Time"]["operator"]
    assert json.loads(profiler.dumps(format="json"))["Time"] == {}
    profiler.set_state("stop")
    mx.nd.sqrt(mx.nd.ones((2,)))
    assert json.loads(profiler.dumps(format="json"))["Time"] == {}
    assert not engine.PROFILING


class _Sigmoid(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        y = 1.0 / (1.0 + mx.nd.exp(-in_data[0]))
        self.assign(out_data[0], req[0], y)
        mx.nd.zeros((3, 3))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0]
        self.assign(in_grad[0], req[0], out_grad[0] * (1.0 - y) * y)


@mx.operator.register("ProfiledSigmoid")
class _SigmoidProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shapes):
        return (in_shapes[0],), (in_shapes[0],), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Sigmoid()


@pytest.mark.parametrize("mode", ["imperative", "symbolic"])
def test_custom_operator_domain(aggregate, mode):
    x = mx.nd.array([0.0, 1.0, 2.0, 3.0])
    if mode == "imperative":
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Custom(x, op_type="ProfiledSigmoid")
        y.backward()
    else:
        exe = mx.sym.Custom(mx.sym.var("a"), op_type="ProfiledSigmoid").bind(
            mx.cpu(), {"a": x}, args_grad={"a": mx.nd.zeros((4,))})
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones((4,)))
    mx.nd.waitall()
    custom = json.loads(profiler.dumps(format="json"))["Time"]["Custom Operator"]
    assert {"ProfiledSigmoid::pure_python", "_backward_ProfiledSigmoid::pure_python",
            "ProfiledSigmoid::_zeros", "ProfiledSigmoid::exp"} <= set(custom)
    # MXNet runs the Python forward once; xnd's backward runs it again (the gradient program
    # recomputes the forward), and the statistics count every run
    assert custom["ProfiledSigmoid::pure_python"]["Count"] == 2
    assert custom["_backward_ProfiledSigmoid::pure_python"]["Count"] == 1


@pytest.mark.parametrize("sort_by,key", [("total", "Total"), ("avg", "Avg"), ("min", "Min"),
                                         ("max", "Max"), ("count", "Count")])
@pytest.mark.parametrize("ascending", [False, True])
def test_sorting(aggregate, sort_by, key, ascending):
    x = mx.nd.ones((10, 10))
    for _ in range(3):
        x = x + 1
    mx.nd.sqrt(x)
    mx.nd.exp(x).wait_to_read()
    d = json.loads(profiler.dumps(format="json", sort_by=sort_by, ascending=ascending),
                   object_pairs_hook=OrderedDict)
    values = [row[key] for row in d["Time"]["operator"].values()]
    assert values == sorted(values, reverse=not ascending)


def test_table_layout(aggregate):
    mx.nd.sqrt(mx.nd.ones((2,))).wait_to_read()
    lines = profiler.dumps().splitlines()
    assert lines[:3] == ["", "Profile Statistics:", "\tNote the difference in units for different entries."]
    head = lines.index("operator")
    assert lines[head + 1] == "================="
    assert lines[head + 2] == ("Name                          Total Count        Time (ms)    "
                               "Min Time (ms)    Max Time (ms)    Avg Time (ms)")
    row = next(ln for ln in lines if ln.startswith("sqrt "))
    assert row[:41] == "sqrt" + " " * 36 + "1" and len(row) == 41 + 4 * 17
    with pytest.raises(AssertionError, match="Invalid value provided for sort_by"):
        profiler.dumps(sort_by="median")
