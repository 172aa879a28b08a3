"""The Trainer's path for sparse parameters (MXNet 1.9.1's rules, literally): a row_sparse
weight lives on a store that updates it (pushed gradients, weights read back with
``row_sparse_pull``); a dense weight with a row_sparse gradient pushes and pulls the sparse
gradient and updates locally (lazily) unless the store is distributed. The dense-only
Trainer keeps its own faster path (trainer.py)."""


def involved(trainer):
    """Whether any parameter has sparse storage or a sparse gradient."""
    return any(p._stype != "default" or (p.grad_req != "null" and p._grad_stype != "default")
               for p in trainer._params)


def _sparse_weight(trainer):
    return any(p._stype != "default" for p in trainer._params)


def init_kvstore(trainer):
    from .. import kvstore as kvs
    from .. import model
    config = trainer._kvstore_params
    if _sparse_weight(trainer):
        kv = config["kvstore"]
        if isinstance(kv, str):
            kv = kvs.create(kv)
        elif not isinstance(kv, kvs.KVStoreBase):
            raise TypeError("Cannot create '%s' KVStore with row_sparse parameters. The type "
                            "must be KVStore or str." % (kv,))
        assert kv.is_capable(kvs.KVStoreBase.OPTIMIZER), \
            "KVStore with sparse weight requires optimizer support."
        if config["update_on_kvstore"] is False:
            raise ValueError("Cannot set update_on_kvstore=False when sparse weights are "
                             "present.")
        upd = True
    else:
        kv, _ = model._create_kvstore(config["kvstore"], len(trainer._contexts or [None]),
                                      {p.name: p for p in trainer._params})
        distributed = kv is not None and "dist" in kv.type
        upd = distributed
        if config["update_on_kvstore"] is not None:
            if config["update_on_kvstore"] is False and distributed:
                raise ValueError("Cannot set update_on_kvstore=False on dist kvstore when "
                                 "sparse gradients are present.")
            upd = config["update_on_kvstore"]
        if kv is not None and not isinstance(kv, kvs.KVStore):
            raise ValueError("Cannot use {} for multi-device training with sparse gradients"
                             .format(type(kv)))
    trainer._distributed = kv is not None and "dist" in kv.type
    if kv is not None:
        for i, p in enumerate(trainer._params):
            if p._data is not None:   # (a deferred one joins the store when it is made)
                kv.init(i, p._data[0])
        trainer._params_to_init = [p for p in trainer._params if p._data is None]
        if upd:
            kv._set_updater(trainer._updaters[0])
        trainer._kvstore, trainer._update_on_kvstore = kv, bool(upd)
    else:
        trainer._kvstore, trainer._update_on_kvstore = None, None
    trainer._sparse_kv = True
    trainer._kv_initialized = True


def allreduce_grads(trainer):
    kv = trainer._kvstore
    if not kv:
        return
    for i, param in enumerate(trainer._params):
        if param.grad_req == "null":
            continue
        grads = param.list_grad()
        if grads[0].stype != "default":
            kv.push(i, grads, priority=-i)
            if param._stype == "default":
                pull = param._data if trainer._update_on_kvstore else grads
                kv.pull(i, pull, priority=-i, ignore_sparse=trainer._distributed)
        elif trainer._update_on_kvstore:
            kv.pushpull(i, grads, out=param._data, priority=-i)
        else:
            kv.pushpull(i, grads, priority=-i)


def row_sparse_pull(trainer, parameter, out, row_id, full_idx=False):
    """Rows ``row_id`` of the store's value of ``parameter`` into ``out``."""
    if not trainer._kv_initialized:
        trainer._init_kvstore()
    if trainer._params_to_init:
        trainer._init_params()
    idx = trainer._param2idx[parameter._uuid]
    if full_idx and "dist" not in trainer._kvstore.type:
        assert row_id.size == out.shape[0]
        trainer._kvstore.pull(idx, out=out, priority=-idx, ignore_sparse=False)
    else:
        trainer._kvstore.row_sparse_pull(idx, out=out, row_ids=row_id, priority=-idx)


def init_params(trainer):
    """Parameters initialized since the store was made join it."""
    kv = trainer._kvstore
    for p in trainer._params_to_init:
        if kv is not None and p._data is not None:
            kv.init(trainer._param2idx[p._uuid], p._data[0])
    trainer._params_to_init = [p for p in trainer._params if p._data is None]
