"""Gluon's data pipeline under NumPy array semantics (``npx.set_np()``), the cases
tests/make_np_mode_data_goldens.py runs on MXNet 1.9.1 and tests/test_np_mode_data.py on xnd:
ArrayDataset, DataLoader's default batching (threads and worker processes), the vision datasets
read from local files, and the vision transforms. Each case returns ``{name: value}``; ``record``
turns a value into its kind (``np`` = mx.np.ndarray, ``nd`` = legacy NDArray, ``numpy``,
``numpy-scalar``, ``tuple``/``list`` of those), dtype, shape and numbers.

The dataset files are made here (numpy only), in the formats MNIST and CIFAR-10 ship in.
"""
import gzip
import os
import struct

import numpy as np

N_IMAGES = 6


def write_datasets(root):
    """MNIST/FashionMNIST idx files (gzipped) and CIFAR-10 binary batches under ``root``."""
    rs = np.random.RandomState(5)
    images = rs.randint(0, 256, size=(N_IMAGES, 28, 28)).astype(np.uint8)
    labels = rs.randint(0, 10, size=N_IMAGES).astype(np.uint8)
    for sub in ("mnist", "fashion-mnist"):
        d = os.path.join(root, sub)
        os.makedirs(d, exist_ok=True)
        for split in ("train", "t10k"):
            with gzip.open(os.path.join(d, f"{split}-images-idx3-ubyte.gz"), "wb") as f:
                f.write(struct.pack(">IIII", 2051, N_IMAGES, 28, 28) + images.tobytes())
            with gzip.open(os.path.join(d, f"{split}-labels-idx1-ubyte.gz"), "wb") as f:
                f.write(struct.pack(">II", 2049, N_IMAGES) + labels.tobytes())
    d = os.path.join(root, "cifar10")
    os.makedirs(d, exist_ok=True)
    for i, name in enumerate(["data_batch_%d.bin" % k for k in range(1, 6)] + ["test_batch.bin"]):
        rows = np.concatenate([rs.randint(0, 10, size=(4, 1)),
                               rs.randint(0, 256, size=(4, 3072))], axis=1).astype(np.uint8)
        with open(os.path.join(d, name), "wb") as f:
            f.write(rows.tobytes())


def record(mx, value, name, meta, arrays):
    """Describe ``value`` under ``name`` in ``meta`` (kinds, dtypes, shapes) and ``arrays``."""
    if isinstance(value, (list, tuple)):
        meta[name] = {"kind": type(value).__name__, "len": len(value)}
        for i, v in enumerate(value):
            record(mx, v, f"{name}.{i}", meta, arrays)
        return
    if isinstance(value, mx.np.ndarray):
        kind, host = "np", value.asnumpy()
    elif isinstance(value, mx.nd.NDArray):
        kind, host = "nd", value.asnumpy()
    elif isinstance(value, np.ndarray):
        kind, host = "numpy", value
    elif isinstance(value, np.generic):
        kind, host = "numpy-scalar", np.asarray(value)
    elif isinstance(value, str):
        meta[name] = {"kind": "str", "value": value}
        return
    else:
        kind, host = type(value).__name__, np.asarray(value)
    meta[name] = {"kind": kind, "dtype": str(host.dtype), "shape": list(host.shape)}
    arrays[name] = host


X = np.arange(18, dtype=np.float32).reshape(6, 3) / 7
Y = np.array([0, 1, 2, 0, 1, 2], dtype=np.int32)


def case_array_dataset(mx):
    from mxnet.gluon.data import ArrayDataset, DataLoader
    out = {}
    ds = ArrayDataset(X, Y)
    out["numpy_item"] = ds[1]
    out["numpy_batches"] = list(DataLoader(ds, batch_size=4))
    ds = ArrayDataset(mx.np.array(X), mx.np.array(Y, dtype=np.int32))
    out["np_item"] = ds[2]
    out["np_batches"] = list(DataLoader(ds, batch_size=4, last_batch="discard"))
    ds = ArrayDataset(X)
    out["single_batches"] = list(DataLoader(ds, batch_size=5, last_batch="rollover"))
    ds = ArrayDataset(X.tolist(), Y.tolist())
    out["list_batches"] = list(DataLoader(ds, batch_size=3))
    return out


def case_dataloader_workers(mx):
    from mxnet.gluon.data import ArrayDataset, DataLoader
    ds = ArrayDataset(X, Y)
    return {"workers": list(DataLoader(ds, batch_size=4, num_workers=2)),
            "threads": list(DataLoader(ds, batch_size=4, num_workers=2, thread_pool=True))}


def case_vision_datasets(mx, root):
    from mxnet.gluon.data import DataLoader
    from mxnet.gluon.data.vision import CIFAR10, MNIST, FashionMNIST, transforms
    out = {}
    for name, cls, sub in (("mnist", MNIST, "mnist"), ("fashion", FashionMNIST, "fashion-mnist"),
                           ("cifar10", CIFAR10, "cifar10")):
        ds = cls(root=os.path.join(root, sub), train=False)
        out[name + "_item"] = ds[3]
        out[name + "_batch"] = next(iter(DataLoader(ds, batch_size=4)))
        tds = ds.transform_first(transforms.Compose([transforms.ToTensor(),
                                                     transforms.Normalize(0.5, 0.25)]))
        out[name + "_tensor_batch"] = next(iter(DataLoader(tds, batch_size=4)))
    ds = MNIST(root=os.path.join(root, "mnist"), train=True,
               transform=lambda d, l: (d.astype(np.float32) / 255, l))
    out["mnist_transform_item"] = ds[0]
    return out


def raised(fn):
    """The error ``fn`` raises, as ``"<type>: <first words>"`` (the value when it raises none)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001  (the type is the recorded outcome)
        return f"{type(e).__name__}: {' '.join(str(e).split()[:6])}"


def case_transforms(mx):
    from mxnet.gluon.data.vision import transforms as T
    img = mx.np.array(np.arange(8 * 10 * 3).reshape(8, 10, 3) % 256, dtype=np.uint8)
    out = {"to_tensor": T.ToTensor()(img),
           "normalize": T.Normalize((0.1, 0.2, 0.3), (0.5, 0.6, 0.7))(
               T.ToTensor()(img)),
           "resize": T.Resize((6, 4))(img),
           "resize_keep": T.Resize(5, keep_ratio=True)(img),
           "center_crop": T.CenterCrop((4, 6))(img),
           "cast": T.Cast("float16")(img),
           "crop_resize": raised(lambda: T.CropResize(1, 2, 5, 4, size=(3, 3))(img)),
           "compose": T.Compose([T.Resize(4), T.CenterCrop(3), T.ToTensor()])(img),
           "batch_to_tensor": T.ToTensor()(mx.np.stack([img, img])),
           "flip_shape": T.RandomFlipLeftRight()(img).shape}
    return out


def case_first_layer(mx):
    """What the d2l chapters do next: the batch goes into a Gluon layer."""
    from mxnet.gluon import nn
    from mxnet.gluon.data import ArrayDataset, DataLoader
    net = nn.Dense(2, in_units=3)
    net.initialize(mx.init.Constant(0.5))
    x, y = next(iter(DataLoader(ArrayDataset(X, Y), batch_size=4)))
    return {"dense": net(x), "label": y}
