"""mx.autograd's tape (MXNet's Imperative::RecordOp): what ``record()`` writes while
operators run eagerly.

Every NDArray that takes part in a recorded computation carries an *entry* in
its ``_ag`` slot: ``(node, output index)``. Nodes are

* :class:`OpNode` -- one registry call (or a custom ``Function``, or a
  gradient computed with ``create_graph=True``): a structural ``kind`` (op and
  static attributes), the input entries, the dynamic attribute values (scalars,
  rng key) and the number of outputs;
* :class:`ExtNode` -- a value that enters the graph from outside: a marked
  variable (``attach_grad``/``mark_variables``) or a constant (an array with
  no history used together with graph arrays). It keeps the value seen at
  record time and the handle (for the gradient buffer, and as a fallback
  when the value was donated or dropped).

MXNet's rules reproduced here (imperative.cc, RecordOp): an op is recorded
only when one of its inputs is already in a graph (a marked variable, or an
array with live history); its other inputs then become constants of the
graph; writing in place into an array that is in a graph raises.

Node ids grow monotonically, so sorting reachable nodes by id is a
topological order.
"""
import itertools
import weakref

from ..base import MXNetError
from .. import rng as _rng
from ..lowering.indexing import basic_plan
from ..ndarray import STATE

_ids = itertools.count(1)
_LAST = [0]  # id of the newest recorded node (see on_write)

ASSIGN_MSG = ("Assigning to NDArrays that are already in a computational graph will cause "
              "undefined behavior when evaluating gradients. Please call backward first to "
              "clear the graph or do this out side of a record section. Also note that you "
              "cannot use inplace operations like +=, *=, relu(x, out=x), y[idx]=x, etc inside "
              "a record section.")
INPLACE_MSG = ("Inplace operations (+=, -=, x[:]=, etc) are not supported when recording with "
               "autograd.")


class OpNode:
    __slots__ = ("id", "kind", "inputs", "dyn", "nout", "outs", "cleared", "extra", "__weakref__")

    def __init__(self, kind, inputs, dyn, nout, extra=None, node_id=None):
        self.id = next(_ids) if node_id is None else node_id
        self.kind = kind        # hashable: ("op", Op, static key) | ("grad", plan) | ("func", ...)
        self.inputs = inputs    # tuple of entries (node, index) or None
        self.dyn = dyn          # tuple of dynamic values (jit arguments, never constants)
        self.nout = nout
        self.outs = ()          # the output values computed eagerly (engine's "saved" mode)
        self.cleared = False    # freed by a backward without retain_graph
        self.extra = extra      # a Function instance, kept alive with the node


class ExtNode:
    __slots__ = ("id", "value", "_handle", "ctx", "is_var", "cleared", "born", "rows",
                 "__weakref__")

    def __init__(self, handle, value, is_var, born=0, rows=None):
        self.id = next(_ids)
        # weakly: the array holds its entry (``x._ag``), and a strong reference back made
        # every recorded array a reference cycle that only the cyclic collector freed -- a
        # test suite's 512 MB inputs and gradients piled up to 20 GB between its runs
        self._handle = weakref.ref(handle)
        self.ctx = handle._ctx
        self.value = value
        self.is_var = is_var
        self.cleared = False
        self.born = born  # id of the op node whose recording created this constant entry
        # host indices: this entry stands for rows ``rows`` of variable ``handle`` (its value
        # those rows only), whose gradient is row_sparse (xnd/sparse/tape.py)
        self.rows = rows

    @property
    def handle(self):
        """The array this entry stands for, or None once it is gone (nobody can read its
        gradient then)."""
        return self._handle()

    def current(self):
        """The value to use in a backward pass: the recorded one, or the handle's buffer.

        The recorded value is dropped after a backward without retain_graph and may
        have been donated by an ``out=`` write; MXNet then reads the array's current
        memory too (its graph references the buffer, which in-place updates mutate).
        """
        v = self.value
        if v is None or v.is_deleted():
            v = self.handle._val()
        return v


def grad_req(x):
    """'write'/'add'/'null' for a marked variable, None for any other array."""
    return getattr(x, "_grad_req", None)


def live_entry(x):
    """x's entry if it is in a live graph, else None."""
    e = x._ag
    if e is None:
        return None
    node = e[0]
    if node.cleared:
        return None
    if type(node) is ExtNode:
        if node.is_var:
            if (node.handle is not x and node.rows is None) or node.value is not x._val():
                return None  # the variable changed since: a new variable node is due
        elif node.value is not None and node.value is not x._val():
            return None
    return e


def var_entry(x):
    """A variable entry for marked variable ``x`` (reusing its current one when still valid)."""
    e = live_entry(x)
    if e is not None and type(e[0]) is ExtNode and e[0].is_var:
        return e
    e = (ExtNode(x, x._val(), True), 0)
    x._ag = e
    return e


def input_entry(x, born):
    """The entry of input ``x`` of a node being recorded (x becomes a constant if it has none)."""
    e = live_entry(x)
    if e is not None:
        return e
    if grad_req(x) is not None:
        return var_entry(x)
    e = (ExtNode(x, x._val(), False, born), 0)
    x._ag = e
    return e


def in_graph(x):
    return live_entry(x) is not None or grad_req(x) is not None


def record_node(kind, inputs, dyn, outputs, extra=None):
    """Append a node if any input is in a graph; give the outputs their entries.

    Returns the node, or None when nothing was recorded (no input needs a gradient).
    """
    for x in inputs:
        if x is not None and (x._ag is not None or grad_req(x) is not None) and in_graph(x):
            break
    else:
        return None
    node_id = next(_ids)
    ins = tuple(None if x is None else input_entry(x, node_id) for x in inputs)
    node = OpNode(kind, ins, dyn, len(outputs), extra, node_id)
    _LAST[0] = node_id
    node.outs = tuple(y._val() for y in outputs)
    for i, y in enumerate(outputs):
        y._ag = (node, i)
        y._shared = True  # the tape keeps this buffer: never donate it
    return node


def _rng_key(op, attrs):
    key = attrs.get("key")
    if key is None:
        # The core does not hand the key over: it is the draw that invoke made just now.
        key = _rng.current_key()
    return key


def record(op, attrs, inputs, outputs):
    """STATE.record: called by ``ndarray.invoke`` after each eager op while recording."""
    for x in inputs:
        if x is not None and (x._ag is not None or grad_req(x) is not None):
            break
    else:
        return  # fast path: nothing here is in a graph
    kind = ("op", op, op.static_key(attrs))
    if op.dynamic:
        if op.rng:
            dyn = tuple(attrs[n] for n in op.dynamic[:-1]) + (_rng_key(op, attrs),)
        else:
            dyn = tuple(attrs[n] for n in op.dynamic)
    else:
        dyn = ()
    node = record_node(kind, inputs, dyn, outputs)
    if node is not None and op.name == "_setitem":
        _check_setitem(attrs, inputs, node)


def _check_setitem(attrs, inputs, node):
    """MXNet writes a partial ``t[key] = v`` in place (slice_assign, out=t): t must not be
    a graph constant then. A full basic key is ``v.copyto(t)``, which is allowed."""
    target = inputs[0]
    e = target._ag
    if e is None or type(e[0]) is not ExtNode or e[0].born != node.id:
        return
    key = attrs.get("index", attrs.get("key", ()))
    full = False
    if not any(isinstance(k, tuple) and k and k[0] == "a" for k in key):
        try:
            plan = basic_plan(target.shape, key)
        except Exception:  # noqa: BLE001
            plan = ("copy",)
        if plan[0] == "view":
            n = 1
            for d in plan[2]:
                n *= d
            full = n == target.size and target.size > 0
    if not full:
        raise MXNetError(INPLACE_MSG)


def on_write(x):
    """STATE.on_write: called before an in-place write into ``x`` while recording."""
    e = live_entry(x)
    if e is not None:
        node = e[0]
        if type(node) is ExtNode and not node.is_var and node.born == _LAST[0]:
            # x became a constant of the op just recorded, whose result now goes into x
            raise MXNetError(INPLACE_MSG)
        raise MXNetError(ASSIGN_MSG)
    req = grad_req(x)
    if req is not None and (req != "null" or x._grad is not None):
        raise MXNetError(ASSIGN_MSG)


def rows_variable(x):
    """Whether ``x`` is a marked variable (no history of its own) whose gradient is
    row_sparse: a recorded sparse operator may then take only some of its rows."""
    g = getattr(x, "_grad", None)
    if g is None or g.stype != "row_sparse" or grad_req(x) not in ("write", "add"):
        return False
    e = live_entry(x)
    return e is None or (type(e[0]) is ExtNode and e[0].is_var)


def rows_entry(r, x, rows):
    """Make array ``r`` (the value of rows ``rows`` of variable ``x``) a tape input that
    stands for those rows: its gradient becomes the rows of x's row_sparse gradient."""
    r._ag = (ExtNode(x, r._val(), True, rows=rows), 0)
    r._shared = True  # the tape keeps this buffer: never donate it


def install():
    type(STATE).record = staticmethod(record)   # shared by all threads (flags: per thread)
    type(STATE).on_write = staticmethod(on_write)
    from ..sparse import tape as sparse_tape    # (sparse sits below autograd: a hook)
    sparse_tape.AUTOGRAD.update(in_graph=in_graph, rows_variable=rows_variable,
                                rows_entry=rows_entry, grad_req=grad_req)
