"""nd.image / gluon vision-transform cases, run on MXNet 1.9.1 by make_nd_image_goldens.py and
on xnd by test_nd_image.py: ``run(mx)`` returns {name: array}."""
import numpy as np

RS = np.random.RandomState(7)
IMG = RS.randint(0, 256, (9, 12, 3)).astype(np.uint8)      # even width: exact flips
IMGF = RS.uniform(0, 255, (7, 10, 3)).astype(np.float32)
BATCH = RS.randint(0, 256, (2, 6, 8, 3)).astype(np.uint8)


def run(mx):
    nd, out = mx.nd, {}
    img, imgf, batch = nd.array(IMG, dtype="uint8"), nd.array(IMGF), nd.array(BATCH, dtype="uint8")
    out["to_tensor"] = nd.image.to_tensor(img).asnumpy()
    out["to_tensor_batch"] = nd.image.to_tensor(batch).asnumpy()
    t = nd.image.to_tensor(img)
    out["normalize"] = nd.image.normalize(t, mean=(0.1, 0.2, 0.3), std=(0.5, 0.4, 0.25)).asnumpy()
    out["normalize_scalar"] = nd.image.normalize(t, mean=0.2, std=0.5).asnumpy()
    out["normalize_batch"] = nd.image.normalize(nd.image.to_tensor(batch), mean=(0.5, 0.4, 0.3),
                                                std=(0.2, 0.3, 0.4)).asnumpy()
    x = t.copy()
    x.attach_grad()
    head = nd.array(RS.uniform(-1, 1, x.shape))
    with mx.autograd.record():
        y = nd.image.normalize(x, mean=(0.1, 0.2, 0.3), std=(0.5, 0.4, 0.25))
    y.backward(head)
    out["normalize_grad"] = x.grad.asnumpy()
    out["crop"] = nd.image.crop(img, 2, 1, 5, 4).asnumpy()
    out["crop_batch"] = nd.image.crop(batch, 1, 2, 4, 3).asnumpy()
    xf = imgf.copy()
    xf.attach_grad()
    with mx.autograd.record():
        c = nd.image.crop(xf, 3, 2, 4, 5)
    c.backward(nd.ones(c.shape))
    out["crop_grad"] = xf.grad.asnumpy()
    for interp in range(5):
        out[f"resize_u8_{interp}"] = nd.image.resize(img, (7, 5), interp=interp).asnumpy()
        out[f"resize_f32_{interp}"] = nd.image.resize(imgf, (13, 11), interp=interp).asnumpy()
    out["resize_keep_ratio"] = nd.image.resize(img, 6, keep_ratio=True).asnumpy()
    out["resize_square"] = nd.image.resize(img, 6).asnumpy()
    out["resize_batch"] = nd.image.resize(batch, (4, 3)).asnumpy()
    out["flip_lr"] = nd.image.flip_left_right(img).asnumpy()
    # even sizes: MXNet 1.9.1 leaves the middle row/column of odd sizes unwritten
    out["flip_tb"] = nd.image.flip_top_bottom(nd.array(IMGF[:6])).asnumpy()
    out["lighting"] = nd.image.adjust_lighting(imgf, alpha=(0.1, -0.2, 0.3)).asnumpy()
    T = mx.gluon.data.vision.transforms
    for interp in (0, 1, 2, 3):
        out[f"T_resize_{interp}"] = T.Resize((7, 5), interpolation=interp)(img).asnumpy()
    out["T_resize_keep"] = T.Resize(10, keep_ratio=True)(img).asnumpy()
    out["T_center_crop"] = T.CenterCrop((14, 10))(img).asnumpy()
    out["T_to_tensor_normalize"] = T.Compose([T.ToTensor(), T.Normalize((0.4, 0.5, 0.6),
                                                                        (0.2, 0.2, 0.3))])(img).asnumpy()
    out["imresize_1"] = mx.image.imresize(img, 7, 5, interp=1).asnumpy()
    s = mx.sym.image.normalize(mx.sym.image.to_tensor(mx.sym.var("data")), mean=(0.1, 0.2, 0.3),
                               std=(0.5, 0.4, 0.25))
    ex = s.bind(mx.cpu(), {"data": img})
    out["sym_to_tensor_normalize"] = ex.forward()[0].asnumpy()
    return out
