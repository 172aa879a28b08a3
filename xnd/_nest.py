"""MXNet's encoding of nested lists of arrays or symbols (control-flow operators' inputs and
states, a hybridized block's inputs and outputs): ``flatten`` gives (flat list, format), a
format being an int for a leaf and a list of formats for a list; ``regroup`` inverts it."""


def flatten(args, leaf, error):
    """(flat list, format) of ``args``, a leaf or a (nested) list/tuple of leaves.
    ``leaf(x)`` is (items, int format) when ``x`` is a leaf and None otherwise; anything else
    that is not a list or tuple raises ``error(x)``."""
    got = leaf(args)
    if got is not None:
        return got
    if not isinstance(args, (list, tuple)):
        raise error(args)
    flat, fmts = [], []
    for a in args:
        f, fmt = flatten(a, leaf, error)
        flat.extend(f)
        fmts.append(fmt)
    return flat, fmts


def regroup(args, fmt, none_check=None):
    """``flatten``'s inverse: (nested structure, the items left over).  Int formats: 0 is one
    item, k > 0 is k items as a list, -1 (Gluon's encoding of None) is None, after
    ``none_check`` vets the item it stands for."""
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        if fmt == -1 and none_check is not None:
            none_check(args[0])
            return None, args[1:]
        if fmt < 0:
            raise ValueError(f"Unsupported encoded format {fmt}.")
        return args[:fmt], args[fmt:]
    out = []
    for f in fmt:
        res, args = regroup(args, f, none_check)
        out.append(res)
    return out, args
