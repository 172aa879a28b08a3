"""Goldens for tests/test_estimator.py: gluon.contrib.estimator (Estimator.fit/evaluate
and its event handlers) on MXNet 1.9.1. Run with the reference MXNet:

    /work/mxref/bin/python tests/make_estimator_goldens.py

writes tests/goldens/estimator/cases.{json,npz}. ``run_cases(mx, workdir)`` is the one
scenario list: the test runs it on xnd and compares with what this wrote.
"""
import io
import json
import logging
import os
import re
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
X = (np.arange(48, dtype=np.float32).reshape(16, 3) % 7 - 3) / 4
Y = (np.arange(16) % 2).astype(np.float32)
W0 = np.array([[0.1, -0.2, 0.3], [-0.1, 0.2, 0.05]], np.float32)
B0 = np.array([0.0, 0.1], np.float32)


def _net(mx, hybridize=False):
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize(ctx=mx.cpu())
    net.weight.set_data(mx.nd.array(W0))
    net.bias.set_data(mx.nd.array(B0))
    if hybridize:
        net.hybridize()
    return net


def _loader(mx, batch_size=4, x=X, y=Y):
    return mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(mx.nd.array(x), mx.nd.array(y)),
                                    batch_size=batch_size)


def _estimator(mx, net=None, lr=0.5, **kw):
    from mxnet.gluon.contrib.estimator import Estimator
    net = net or _net(mx)
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': lr})
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer,
                         context=mx.cpu(), **kw)


def _capture(est):
    # the estimator's own logger, to a buffer; times replaced (they vary run to run)
    buf = io.StringIO()
    est.logger.handlers = [logging.StreamHandler(buf)]
    return lambda: [re.sub(r'\d+\.\d+s|\d+s ', 'T ', line) for line in buf.getvalue().splitlines()]


def _metrics(metrics):
    return [[m.get()[0], float(m.get()[1])] for m in metrics]


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class name and message are the golden
        return [type(e).__name__, str(e).split(' at 0x')[0][:160]]
    return None


def run_cases(mx, workdir):
    from mxnet.gluon.contrib.estimator import (BatchEnd, BatchBegin, CheckpointHandler,
                                               EarlyStoppingHandler, EpochBegin, EpochEnd,
                                               Estimator, GradientUpdateHandler, LoggingHandler,
                                               MetricHandler, StoppingHandler, TrainBegin,
                                               TrainEnd, ValidationHandler)
    meta, arrays = {}, {}

    # 1. fit for epochs with validation data and the default handlers
    est = _estimator(mx)
    logs = _capture(est)
    est.fit(_loader(mx), val_data=_loader(mx, 8), epochs=3)
    meta['fit_epochs'] = {'train': _metrics(est.train_metrics), 'val': _metrics(est.val_metrics),
                          'log': logs()}
    arrays['fit_epochs_w'] = est.net.weight.data().asnumpy()
    arrays['fit_epochs_b'] = est.net.bias.data().asnumpy()

    # 2. fit for batches (crosses an epoch), logging every 2 batches
    est = _estimator(mx, lr=0.1)
    logs = _capture(est)
    est.fit(_loader(mx), batches=6, event_handlers=[LoggingHandler(
        log_interval=2, metrics=est.train_metrics)])
    meta['fit_batches'] = {'train': _metrics(est.train_metrics), 'log': logs()}
    arrays['fit_batches_w'] = est.net.weight.data().asnumpy()

    # 3. evaluate alone, with a separate val_loss
    est = _estimator(mx, val_loss=mx.gluon.loss.SoftmaxCrossEntropyLoss(weight=0.5),
                     val_metrics=[mx.metric.MAE(), mx.metric.Loss()])
    logs = _capture(est)
    est.evaluate(_loader(mx, 5))
    meta['evaluate'] = {'val': _metrics(est.val_metrics), 'log': logs(),
                        'train_names': [m.name for m in est.train_metrics]}

    # 4. the order handlers run in (priority) and the events each sees
    seen = []

    class Recorder(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
        def __init__(self, tag, priority):
            self.tag, self.priority = tag, priority

        def train_begin(self, estimator, *a, **k):
            seen.append(self.tag + ':train_begin')

        def train_end(self, estimator, *a, **k):
            seen.append(self.tag + ':train_end')

        def epoch_begin(self, estimator, *a, **k):
            seen.append(self.tag + ':epoch_begin')

        def epoch_end(self, estimator, *a, **k):
            seen.append(self.tag + ':epoch_end')
            return False

        def batch_begin(self, estimator, *a, **k):
            seen.append(self.tag + ':batch_begin:%d' % k['batch'][0].shape[0])

        def batch_end(self, estimator, *a, **k):
            seen.append(self.tag + ':batch_end:%d' % len(k['loss']))
            return False

    est = _estimator(mx)
    _capture(est)
    est.fit(_loader(mx, 8), epochs=1, event_handlers=[Recorder('late', 5), Recorder('early', -5)])
    meta['order'] = seen

    # 5. checkpoints: every epoch, two kept, the best by training accuracy
    ckdir = os.path.join(workdir, 'ck')
    est = _estimator(mx, net=_net(mx, hybridize=True))
    logs = _capture(est)
    acc = est.train_metrics[0]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        ck = CheckpointHandler(ckdir, model_prefix='m', monitor=acc, save_best=True,
                               max_checkpoints=2, verbose=1)
    est.fit(_loader(mx), epochs=4, event_handlers=[ck])
    meta['checkpoint'] = {'files': sorted(os.listdir(ckdir)), 'best': float(ck.best),
                          'saved': ck.saved_checkpoints, 'log': logs()}
    # the kept parameters are the net's after epoch 3
    loaded = _net(mx)
    loaded.load_parameters(os.path.join(ckdir, 'm-epoch3batch16.params'))
    arrays['checkpoint_w'] = loaded.weight.data().asnumpy()

    # 6. resume: 6 epochs asked, 4 done -> 2 more; numbering continues
    est = _estimator(mx)
    logs = _capture(est)
    ck2 = CheckpointHandler(ckdir, model_prefix='m', max_checkpoints=10,
                            resume_from_checkpoint=True)
    est.fit(_loader(mx), epochs=6, event_handlers=[ck2])
    meta['resume'] = {'files': sorted(os.listdir(ckdir)), 'max_epoch': est.max_epoch,
                      'trained': [ck2.trained_epoch, ck2.trained_batch], 'log': logs()}
    arrays['resume_w'] = est.net.weight.data().asnumpy()
    est = _estimator(mx)
    _capture(est)
    meta['resume_done'] = _error(lambda: est.fit(_loader(mx), epochs=4, event_handlers=[
        CheckpointHandler(ckdir, model_prefix='m', resume_from_checkpoint=True)]))

    # 7. batch-period checkpoints for a batch count
    bdir = os.path.join(workdir, 'bk')
    est = _estimator(mx)
    logs = _capture(est)
    est.fit(_loader(mx), batches=7, event_handlers=[
        CheckpointHandler(bdir, epoch_period=None, batch_period=3)])
    meta['checkpoint_batches'] = {'files': sorted(os.listdir(bdir)), 'log': logs()}

    # 8. early stopping: no epoch improves the loss by 10 -> stops after patience 2
    est = _estimator(mx)
    logs = _capture(est)
    es = EarlyStoppingHandler(monitor=est.train_metrics[1], min_delta=10, patience=2,
                              mode='min')
    est.fit(_loader(mx), epochs=10, event_handlers=[es])
    meta['early_stopping'] = {'stopped_epoch': es.stopped_epoch, 'epoch': es.current_epoch,
                              'best': float(es.best), 'wait': es.wait, 'log': logs()}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        es_auto = EarlyStoppingHandler(monitor=mx.metric.Loss('l'))
    meta['early_auto_greater'] = es_auto.monitor_op is np.greater

    # 9. validation every 2 batches, batch_axis, and a gradient update handler given
    est = _estimator(mx)
    _capture(est)
    calls = []

    def eval_fn(val_data, batch_axis, event_handlers):
        calls.append(batch_axis)
        est.evaluate(val_data, batch_axis, event_handlers)
    est.fit(_loader(mx), epochs=1, event_handlers=[
        ValidationHandler(_loader(mx, 8), eval_fn, epoch_period=None, batch_period=2),
        GradientUpdateHandler()])
    meta['validation'] = {'calls': calls, 'val': _metrics(est.val_metrics)}

    # 10. two contexts: each batch split in two, one step for the whole batch
    if True:
        net = _net(mx)
        net.collect_params().reset_ctx([mx.cpu(0), mx.cpu(1)])
        trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5})
        est = Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer,
                        context=[mx.cpu(0), mx.cpu(1)])
        _capture(est)
        est.fit(_loader(mx), epochs=2)
        arrays['two_ctx_w'] = net.weight.data(mx.cpu(1)).asnumpy()
        meta['two_ctx'] = _metrics(est.train_metrics)

    # 11. errors
    loader = _loader(mx)
    est = _estimator(mx)
    _capture(est)
    L = mx.gluon.loss.L2Loss()
    meta['errors'] = {
        'both': _error(lambda: est.fit(loader, epochs=1, batches=1)),
        'neither': _error(lambda: est.fit(loader)),
        'not_loader': _error(lambda: est.fit([(X, Y)], epochs=1)),
        'eval_not_loader': _error(lambda: est.evaluate([(X, Y)])),
        'loss': _error(lambda: Estimator(_net(mx), 'l2')),
        'context': _error(lambda: Estimator(_net(mx), L, context='cpu')),
        'gpu': _error(lambda: Estimator(_net(mx), L, context=mx.gpu(3))),
        'trainer': _error(lambda: Estimator(_net(mx), L, trainer='sgd')),
        'metrics': _error(lambda: Estimator(_net(mx), L, train_metrics=['acc'])),
        'processor': _error(lambda: Estimator(_net(mx), L, batch_processor=object())),
        'handlers': _error(lambda: est.fit(loader, epochs=1, event_handlers=[1])),
        'interval': _error(lambda: LoggingHandler(log_interval='batch')),
        'early_monitor': _error(lambda: EarlyStoppingHandler(monitor='acc')),
        'early_composite': _error(lambda: EarlyStoppingHandler(
            monitor=mx.metric.CompositeEvalMetric())),
        'best_monitor': _error(lambda: CheckpointHandler(workdir, save_best=True)),
        'foreign_metric': _error(lambda: est.fit(loader, epochs=1, event_handlers=[
            MetricHandler([mx.metric.Accuracy()])])),
        'resume_periods': _error(lambda: est.fit(loader, batches=2, event_handlers=[
            CheckpointHandler(os.path.join(workdir, 'r'), resume_from_checkpoint=True)])),
    }
    stop = StoppingHandler()
    meta['stopping_defaults'] = [stop.max_epoch, stop.max_batch, stop.stop_training]
    # the logs name the temporary directory: made independent of it
    return json.loads(json.dumps(meta).replace(workdir, '<dir>')), arrays


if __name__ == '__main__':
    sys.path.insert(0, HERE)
    import golden_files
    mx = golden_files.real_mxnet()
    with tempfile.TemporaryDirectory() as d:
        meta, arrays = run_cases(mx, d)
    golden_files.write(os.path.join(HERE, 'goldens', 'estimator', 'cases.json'),
                       os.path.join(HERE, 'goldens', 'estimator', 'cases.npz'), meta, arrays)
