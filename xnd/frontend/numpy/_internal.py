"""``mx.np._internal``: internal numpy-frontend operators of MXNet 1.9.1 that code calls by
name (``F.np._internal.boolean_mask_assign_scalar`` in MXNet's own tests and in ports of
``x[mask] = v``).

``boolean_mask_assign_*(data, mask, value, start_axis, out=)``: ``data`` with the positions
where ``mask`` (laid over ``data``'s axes from ``start_axis``) is True set to ``value``;
with ``out=data`` in place, as ``data[..., mask, ...] = value`` is.
"""
from .multiarray import ndarray


def _assign(data, mask, value, start_axis, out):
    if not isinstance(data, ndarray) or not isinstance(mask, ndarray):
        raise TypeError("boolean_mask_assign: data and mask must be mx.np.ndarrays, got "
                        f"{type(data).__name__} and {type(mask).__name__}")
    if mask.dtype != bool:
        raise TypeError(f"boolean_mask_assign: the mask must be bool, got {mask.dtype}")
    lead = data.shape[start_axis:start_axis + mask.ndim]
    if start_axis < 0 or tuple(lead) != tuple(mask.shape):
        raise ValueError(f"boolean_mask_assign: a mask of shape {mask.shape} does not match "
                         f"data of shape {data.shape} from axis {start_axis}")
    target = data if out is None or out is data else out
    if target is not data:
        target[...] = data
    elif out is None:
        target = data.copy()
    target[(slice(None),) * start_axis + (mask,)] = value
    return target


def boolean_mask_assign_scalar(data, mask, value=0.0, start_axis=0, out=None):
    return _assign(data, mask, float(value), start_axis, out)


def boolean_mask_assign_tensor(data, mask, value, start_axis=0, out=None):
    return _assign(data, mask, value, start_axis, out)
