"""Scopes are per thread, as in MXNet 1.9.1: ``NameManager.current``, ``AttrScope.current``
and ``Context.default_ctx`` can be read and assigned on the class, and an assignment in one
thread does not reach code running in another."""
import threading
import warnings

import xnd as mx
from xnd.attribute import AttrScope
from xnd.context import Context
from xnd.name import NameManager


def _in_thread(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def _while_main_assigns(body, assign):
    """Run ``body`` in a thread that waits until the main thread ran ``assign``."""
    ready, out = threading.Event(), []

    def run():
        out.append(body(ready))
    t = threading.Thread(target=run)
    t.start()
    assign()
    ready.set()
    t.join()
    return out[0]


def test_name_manager_is_fresh_per_thread():
    with NameManager():
        assert mx.sym.var("a").__add__(1).name == "_plusscalar0"
        assert _in_thread(lambda: NameManager.current.get(None, "x")) == "x0"
        assert NameManager.current.get(None, "x") == "x0"
        assert NameManager.current.get(None, "x") == "x1"


def test_name_manager_assignment_is_per_thread():
    old = NameManager.current
    try:
        mine = NameManager.current = NameManager()
        assert NameManager.current is mine
        assert _in_thread(lambda: NameManager.current) is not mine
    finally:
        NameManager.current = old


def test_attr_scope_assignment_does_not_reach_other_threads():
    def body(ready):
        with mx.AttrScope(x="hello"):
            ready.wait()
            return dict(AttrScope.current._attr)
    try:
        got = _while_main_assigns(body, lambda: setattr(AttrScope, "current", AttrScope(x="hi")))
        assert got == {"x": "hello"}
        assert AttrScope.current._attr == {"x": "hi"}
    finally:
        AttrScope.current = AttrScope()
    assert mx.sym.var("v").list_attr() == {}


def test_default_ctx_assignment_is_per_thread():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = Context.default_ctx

        def body(ready):
            with mx.cpu(10):
                ready.wait()
                return Context.default_ctx
        try:
            got = _while_main_assigns(body, lambda: setattr(Context, "default_ctx", mx.cpu(11)))
            assert got == mx.cpu(10)
            assert Context.default_ctx == mx.cpu(11)
            assert _in_thread(lambda: Context.default_ctx) == mx.cpu(0)
        finally:
            Context.default_ctx = old


def test_default_ctx_warns_as_mxnet():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        Context.default_ctx
    assert [x.category for x in w] == [DeprecationWarning]
    assert "Context.default_ctx has been deprecated" in str(w[0].message)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        Context.default_ctx = mx.cpu(0)          # assigning it does not warn in MXNet 1.9.1
    assert w == []


def test_block_scope_prefixes_names_in_its_own_thread():
    from xnd.frontend.gluon.block import _BlockScope

    class Holder:
        prefix, _empty_prefix = "spawned_", False

    def body(ready):
        with _BlockScope(Holder()):
            name = NameManager.current.get(None, "hello")
            ready.wait()
            return name
    got = _while_main_assigns(body, lambda: _BlockScope.create("main_thread", None, "hi"))
    assert got == "spawned_hello0"
