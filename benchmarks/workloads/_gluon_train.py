"""The Gluon training loop the training workloads share (lenet_train, np_mlp_train)."""


def steps(mx, state, n, batch):
    """``n`` steps of ``record`` forward + loss, ``backward``, ``trainer.step(batch)`` over
    ``state`` = (net, loss, trainer, batches, params, [step]), round robin over the batches;
    then wait, and return the checksum input (the parameters' values)."""
    net, loss, trainer, batches, plist, step = state
    for _ in range(n):
        x, y = batches[step[0] % len(batches)]
        step[0] += 1
        with mx.autograd.record():
            lv = loss(net(x), y)
        lv.backward()
        trainer.step(batch)
    mx.nd.waitall()
    return [p.data().asnumpy() for p in plist]
