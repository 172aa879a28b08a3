"""NDArray container format (xnd.serialization) against files written by MXNet 1.9.1.

Fixtures in tests/fixtures/ are copies of shared/fixtures/ (see its MANIFEST.md);
the hex literals below were also written by real MXNet 1.9.1.
"""
import os
import pathlib
import random
import struct

import numpy as np
import pytest

from xnd.base import MXNetError
from xnd import serialization as S

FIX = pathlib.Path(__file__).parent / 'fixtures'
ND_FILES = sorted(p.name for p in FIX.glob('nd_*.nd'))
PARAM_FILES = sorted(p.name for p in FIX.glob('*.params'))
ALL_FILES = ND_FILES + PARAM_FILES

# mx.nd.save(f, [mx.nd.array([1.5, -2.25, 3.0]).astype(bfloat16)])
MX_BF16 = (
    '120100000000000000000000000000000100000000000000c9fa93f90000000001000000030000000000'
    '000001000000000000000c000000c03f10c040400000000000000000')
# mx.nd.save(f, [mx.nd.sparse.zeros('csr', (2, 3))])
MX_CSR_EMPTY = (
    '120100000000000000000000000000000100000000000000c9fa93f90200000001000000000000000000'
    '000002000000020000000000000003000000000000000100000000000000000000000600000001000000'
    '030000000000000006000000010000000000000000000000000000000000000000000000000000000000'
    '0000000000000000000000000000')
# mx.nd.save(f, [mx.nd.sparse.zeros('row_sparse', (4, 3))])
MX_RSP_EMPTY = (
    '120100000000000000000000000000000100000000000000c9fa93f90100000002000000000000000000'
    '000003000000000000000200000004000000000000000300000000000000010000000000000000000000'
    '060000000100000000000000000000000000000000000000')


def raw(name):
    return (FIX / name).read_bytes()


@pytest.fixture(scope='module')
def expected():
    z = np.load(FIX / 'nd_all_dtypes_expected.npz')
    return {str(k): z[str(k)] for k in z['__order__']}


def assert_same(a, b):
    """Same dtype, shape and bit pattern (nan, -0.0, denormals included)."""
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def header(n):
    return struct.pack('<QQQ', 0x112, 0, n)


def v2(dims, code=0, data=b'', stype=0, ctx=(1, 0)):
    return struct.pack(f'<Iii{len(dims)}qiii', S.V2_MAGIC, stype, len(dims), *dims, *ctx, code) + data


K0 = struct.pack('<Q', 0)
ONE = struct.pack('<f', 1.0)


# --------------------------------------------------------------------------- tables

def test_dtype_tables():
    assert {d.name: c for d, c in S.DTYPE_CODES.items()} == {
        'float32': 0, 'float64': 1, 'float16': 2, 'uint8': 3, 'int32': 4, 'int8': 5,
        'int64': 6, 'bool': 7}
    assert all(S.CODE_DTYPES[c] == d for d, c in S.DTYPE_CODES.items())
    assert len(S.CODE_DTYPES) == 8


# --------------------------------------------------------------------------- fixtures load

def test_all_dtypes_list(expected):
    got = S.load(FIX / 'nd_all_dtypes_list.nd')
    assert isinstance(got, list) and len(got) == len(expected)
    for g, e in zip(got, expected.values()):
        assert_same(g, e)


def test_all_dtypes_dict(expected):
    got = S.load(str(FIX / 'nd_all_dtypes_dict.nd'))
    assert isinstance(got, dict) and list(got) == list(expected)
    for k, e in expected.items():
        assert_same(got[k], e)
    specials = got['f32_specials'].view(np.uint32)
    assert list(specials[:5]) == [0x7F800000, 0xFF800000, specials[2], 0x80000000, 1]
    assert np.isnan(got['f32_specials'][2])
    assert got['bool_2x3'].dtype == np.bool_


def test_single_empty_legacy_gpu():
    single = S.load(FIX / 'nd_single.nd')
    assert_same(single[0], np.array([[1, 2], [3, 4]], np.float32)) and len(single) == 1
    assert S.load(FIX / 'nd_empty_list.nd') == []
    a6 = np.arange(6, dtype=np.float32)
    for name, shape in [('nd_legacy_v1.nd', (2, 3)), ('nd_legacy_v0.nd', (3, 2)),
                        ('nd_gpu_ctx.nd', (2, 3))]:
        got = S.load(FIX / name)
        assert len(got) == 1 and type(got[0]) is np.ndarray
        assert_same(got[0], a6.reshape(shape))


def test_v3_npshape_file():
    got = S.load(FIX / 'nd_npshape_v3.nd')
    assert_same(got[0], np.zeros((0, 3), np.float32))
    assert_same(got[1], np.array(2.5, np.float32))
    assert_same(got[2], np.array([1, 2], np.int32))


def test_sparse_densified():
    got = S.load(FIX / 'nd_sparse.nd')
    assert list(got) == ['rsp', 'csr']
    rsp = np.zeros((5, 2), np.float32)
    rsp[[1, 3]] = [[1, 2], [3, 4]]
    assert_same(got['rsp'], rsp)
    assert_same(got['csr'], np.array([[1, 0, 2], [0, 0, 0], [0, 3, 0]], np.float32))
    assert_same(S.loads(bytes.fromhex(MX_CSR_EMPTY))[0], np.zeros((2, 3), np.float32))
    assert_same(S.loads(bytes.fromhex(MX_RSP_EMPTY))[0], np.zeros((4, 3), np.float32))


LENET = {'arg:conv1_weight': (4, 1, 5, 5), 'arg:conv1_bias': (4,),
         'arg:conv2_weight': (8, 4, 3, 3), 'arg:conv2_bias': (8,), 'arg:bn2_gamma': (8,),
         'arg:bn2_beta': (8,), 'arg:fc1_weight': (16, 200), 'arg:fc1_bias': (16,),
         'arg:fc2_weight': (10, 16), 'arg:fc2_bias': (10,), 'aux:bn2_moving_mean': (8,),
         'aux:bn2_moving_var': (8,)}
GLUON = {'0.weight': (6, 3, 3, 3), '0.bias': (6,), '1.gamma': (6,), '1.beta': (6,),
         '1.running_mean': (6,), '1.running_var': (6,), '3.weight': (8, 6, 3, 3),
         '3.bias': (8,), '7.weight': (16, 72), '7.bias': (16,), '9.weight': (10, 16),
         '9.bias': (10,)}
GLUON_LEGACY = ['conv0_weight', 'conv0_bias', 'batchnorm0_gamma', 'batchnorm0_beta',
    'batchnorm0_running_mean', 'batchnorm0_running_var', 'conv1_weight',
    'conv1_bias', 'dense0_weight', 'dense0_bias', 'dense1_weight', 'dense1_bias']
GLUON_EXPORT = ['arg:hybridsequential0_' + k for k in GLUON_LEGACY[:4]] + \
    ['aux:hybridsequential0_' + k for k in GLUON_LEGACY[4:6]] + \
    ['arg:hybridsequential0_' + k for k in GLUON_LEGACY[6:]]


def test_checkpoint_params():
    got = S.load(FIX / 'lenet-0002.params')
    assert {k: v.shape for k, v in got.items()} == LENET and list(got) == list(LENET)
    assert all(v.dtype == np.float32 and np.isfinite(v).all() for v in got.values())
    assert (got['aux:bn2_moving_var'] > 0).all() and not (got['aux:bn2_moving_mean'] == 0).all()


def test_gluon_params_same_values_three_ways():
    new = S.load(FIX / 'gluon_cnn.params')
    legacy = S.load(FIX / 'gluon_cnn-legacy_save_params.params')
    export = S.load(FIX / 'gluon_cnn-0000.params')
    assert {k: v.shape for k, v in new.items()} == GLUON and list(new) == list(GLUON)
    assert list(legacy) == GLUON_LEGACY and list(export) == GLUON_EXPORT
    for a, b, c in zip(new.values(), legacy.values(), export.values()):
        assert_same(a, b)
        assert_same(a, c)


# --------------------------------------------------------------------------- writing

def test_bytes_equal_mxnet(expected):
    assert S.dumps([np.array([[1, 2], [3, 4]], np.float32)]) == raw('nd_single.nd')
    assert S.dumps(np.array([[1, 2], [3, 4]], np.float32)) == raw('nd_single.nd')
    assert S.dumps(list(expected.values())) == raw('nd_all_dtypes_list.nd')
    assert S.dumps(expected) == raw('nd_all_dtypes_dict.nd')
    assert S.dumps([]) == S.dumps({}) == raw('nd_empty_list.nd')
    a6 = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert S.dumps([a6], contexts=[(2, 1)]) == raw('nd_gpu_ctx.nd')
    v3 = [np.zeros((0, 3), np.float32), np.array(2.5, np.float32), np.array([1, 2], np.int32)]
    assert S.dumps(v3) == raw('nd_npshape_v3.nd')  # a 0-d array makes the file V3


@pytest.mark.parametrize('name', PARAM_FILES)
def test_params_rewrite_byte_exact(name):
    assert S.dumps(S.load(FIX / name)) == raw(name)


def test_bfloat16():
    ml_dtypes = pytest.importorskip('ml_dtypes')
    vals = np.array([1.5, -2.25, 3.0], np.float32)
    got = S.loads(bytes.fromhex(MX_BF16))[0]
    assert_same(got, vals)                       # bfloat16 loads as float32
    assert S.dumps([vals.astype(ml_dtypes.bfloat16)]) == bytes.fromhex(MX_BF16)
    mx_struct = vals.view(np.uint32).__rshift__(16).astype(np.uint16).view([('bfloat16', '<u2')])
    assert S.dumps([mx_struct]) == bytes.fromhex(MX_BF16)


def test_record_bytes_is_pickle_payload():
    a = np.array([[1, 2], [3, 4]], np.float32)
    rec = S.record_bytes(a)
    assert rec == raw('nd_single.nd')[24:-8]      # = MXNet __getstate__()['handle']
    assert_same(S.parse_record(bytearray(rec)), a)
    assert_same(S.parse_record(rec + b'trailing'), a)  # ignored, as MXNDArrayLoadFromRawBytes
    assert S.record_bytes(a, (2, 3))[-28:-20] == struct.pack('<ii', 2, 3)
    assert_same(S.parse_record(S.record_bytes(np.array(7, np.int64))), np.array(7, np.int64))
    with pytest.raises(MXNetError):
        S.parse_record(rec[:-1])


def _all_dtype_arrays():
    rng = np.random.default_rng(0)
    out = {}
    for dt in S.DTYPE_CODES:
        for shape in [(3,), (2, 3), (1, 1, 1, 1), (2, 0, 3), (), (1,) * 32]:
            v = np.asarray(rng.normal(size=shape) * 100)
            out[f'{dt.name}{shape}'] = np.asarray(v > 0) if dt == np.bool_ else v.astype(dt)
    return out


@pytest.mark.parametrize('as_dict', [False, True])
def test_round_trip_every_dtype(as_dict):
    arrays = _all_dtype_arrays()
    data = arrays if as_dict else list(arrays.values())
    got = S.loads(S.dumps(data))
    assert isinstance(got, dict) == as_dict
    for g, e in zip(got.values() if as_dict else got, arrays.values()):
        assert_same(g, e)
        assert g.flags.writeable and g.flags.c_contiguous


def test_round_trip_layouts_and_names():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    data = {'fortran': np.asfortranarray(a), 'strided': a[::2, ::3], 'big': a.astype('>i4'),
            'é/ü:key': np.array([True, False]), '': np.array([1], np.int8)}
    got = S.loads(S.dumps(data))
    assert list(got) == list(data)
    for k, v in data.items():
        assert_same(got[k], v.astype(v.dtype.newbyteorder('=')))
    big = S.dumps([a.astype('>f4')])
    assert big == S.dumps([a.astype('<f4')])
    # zero-size arrays stay V2 (MXNet 1.9.1 loads a V2 (0, 3) record outside np-shape)
    assert S.dumps([np.zeros((0, 3), np.float32)])[24:28] == struct.pack('<I', S.V2_MAGIC)


def test_dumps_errors():
    a = np.zeros(2, np.float32)
    with pytest.raises(ValueError):
        S.dumps((a,))
    for bad in [5, 'x', None]:
        with pytest.raises(ValueError):
            S.dumps(bad)
    with pytest.raises(TypeError):
        S.dumps({1: a})
    with pytest.raises(TypeError):
        S.dumps({'a': [1, 2]})
    with pytest.raises(TypeError):
        S.dumps([a, 3.0])
    with pytest.raises(MXNetError, match=r"int16.*'w'|'w'.*int16"):
        S.dumps({'v': a, 'w': np.zeros(2, np.int16)})
    with pytest.raises(MXNetError, match=r'complex64.*index 1|index 1.*complex64'):
        S.dumps([a, np.zeros(2, np.complex64)])
    for dt in [np.uint16, np.uint32, np.uint64, object, 'U3']:
        with pytest.raises(MXNetError):
            S.dumps([np.zeros(2, dt)])
    with pytest.raises(ValueError):
        S.dumps([a], contexts=[(1, 0), (1, 0)])
    with pytest.raises(ValueError):
        S.dumps([a], contexts=[('gpu', 0)])


# --------------------------------------------------------------------------- save / load files

def test_save_atomic(tmp_path):
    f = tmp_path / 'w.params'
    S.save(f, {'a': np.arange(3, dtype=np.float32)})
    assert os.listdir(tmp_path) == ['w.params']
    umask = os.umask(0)
    os.umask(umask)
    assert f.stat().st_mode & 0o777 == 0o666 & ~umask
    good = f.read_bytes()
    with pytest.raises(MXNetError):
        S.save(str(f), {'a': np.zeros(2, np.int16)})
    assert f.read_bytes() == good and os.listdir(tmp_path) == ['w.params']
    S.save(f, [np.ones(4, np.int64)])
    assert_same(S.load(f)[0], np.ones(4, np.int64))


def test_save_failure_mid_write_keeps_old_file(tmp_path, monkeypatch):
    f = tmp_path / 'x.nd'
    S.save(f, [np.ones(2, np.float32)])
    good = f.read_bytes()

    def boom(fd):
        raise OSError('disk full')
    monkeypatch.setattr(os, 'fsync', boom)
    with pytest.raises(OSError):
        S.save(f, [np.zeros(5, np.float32)])
    assert f.read_bytes() == good and os.listdir(tmp_path) == ['x.nd']


def test_load_errors(tmp_path):
    with pytest.raises(MXNetError, match='No such file'):
        S.load(tmp_path / 'missing.nd')
    with pytest.raises(MXNetError):
        S.load(tmp_path)
    with pytest.raises(TypeError):
        S.load(3.5)
    with pytest.raises(TypeError):
        S.save(b'bytes.nd', [])
    with pytest.raises(TypeError):
        S.loads('not bytes')


# --------------------------------------------------------------------------- corrupt input

def _offsets(n):
    return sorted(set(range(min(n, 400))) | set(range(0, n, 97)) | {n - 1})


@pytest.mark.parametrize('name', ALL_FILES)
def test_truncated_files_raise(name):
    data = raw(name)
    for cut in _offsets(len(data)):
        with pytest.raises(MXNetError, match='Invalid NDArray file format'):
            S.loads(data[:cut])


@pytest.mark.parametrize('name', ALL_FILES)
def test_random_corruption_only_mxneterror(name):
    data = raw(name)
    rng = random.Random(name)
    for _ in range(300):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(min(len(b), 400))
            b[pos] = rng.choice([0, 0xFF, 0x7F, 0x80, rng.randrange(256)])
        try:
            S.loads(bytes(b))
        except MXNetError:
            pass


def _err(buf, pattern):
    with pytest.raises(MXNetError, match=pattern) as e:
        S.loads(buf)
    assert 'byte offset' in str(e.value)


def test_corrupt_header_and_names():
    good = raw('nd_single.nd')
    _err(b'\x13' + good[1:], 'header magic')
    _err(header(1) + v2([1], data=ONE) + struct.pack('<QQ', 2, 1) + b'a', 'neither 0 nor N')
    _err(header(1) + v2([1], data=ONE) + struct.pack('<Q', 1) + struct.pack('<Q', 2**62),
         'name 0')
    _err(header(1) + v2([1], data=ONE) + struct.pack('<QQ', 1, 1) + b'\xff', 'UTF-8')
    _err(header(2**63) + v2([1], data=ONE) + K0, r'record \d+ of 9223372036854775808')


def test_corrupt_records():
    _err(header(1) + v2([2**40, 2**40], data=ONE) + K0, 'needs')           # huge dims
    _err(header(1) + v2([2**62, 0, 2**62]) + K0, 'shape')                   # overflow, no data
    _err(header(1) + v2([-2, 3]) + K0, 'negative')
    _err(header(1) + v2([-1]) + K0, 'negative')
    _err(header(1) + v2([1] * 33, data=ONE) + K0, 'ndim 33')
    _err(header(1) + struct.pack('<Iii', S.V2_MAGIC, 0, -3) + K0, 'ndim -3')
    _err(header(1) + v2([1], code=8, data=b'\0\0') + K0, 'dtype code 8')
    _err(header(1) + v2([1], code=99) + K0, 'dtype code 99')
    _err(header(1) + v2([1], stype=5, data=ONE) + K0, 'storage type 5')
    v3_sparse = struct.pack('<Iiiq', S.V3_MAGIC, 1, 1, 1)
    _err(header(1) + v3_sparse + K0, 'storage type 1')
    _err(header(1) + struct.pack('<I', 1000) + K0, 'ndim 1000')              # V0 garbage


def test_corrupt_sparse():
    rsp = bytearray(raw('nd_sparse.nd'))
    rsp[0x7C:0x7C + 8] = struct.pack('<q', 5)                                # row index 3 -> 5
    _err(bytes(rsp), 'row index out of range')
    huge = struct.pack('<Iiiqqiqqiiiiiq', S.V2_MAGIC, 1, 2, 0, 2**20, 2, 2**40, 2**20, 1, 0, 0, 6, 1, 0)
    _err(header(1) + huge + K0, 'exceeds')                               # nnz 0, dense huge
    csr = bytearray(raw('nd_sparse.nd'))
    csr[0xEC:0xEC + 8] = struct.pack('<q', 5)                                # indptr[1] 2 -> 5
    _err(bytes(csr), 'indptr')
    too_big = struct.pack('<Iii3qi3qiiiiiq', S.V2_MAGIC, 1, 3, 0, 2**62, 2**62, 3, 0, 2**62, 2**62,
                          1, 0, 0, 6, 1, 0)
    _err(header(1) + too_big + K0, 'cannot make')                            # zero-size, too big


def test_empty_handle_records_load_as_none():
    assert S.loads(header(1) + struct.pack('<Iii', S.V2_MAGIC, 0, 0) + K0) == [None]
    assert S.loads(header(1) + struct.pack('<Ii', S.V1_MAGIC, 0) + K0) == [None]
    assert S.loads(header(1) + struct.pack('<I', 0) + K0) == [None]
    assert S.loads(header(1) + struct.pack('<Iii', S.V3_MAGIC, 0, -1) + K0) == [None]
    assert S.loads(header(1) + struct.pack('<Iiiq', S.V3_MAGIC, 0, 1, -1) + K0) == [None]


def test_lenient_like_mxnet():
    rec = v2([2], code=7, data=b'\x02\x00', ctx=(99, 4))   # odd device, bool byte 2
    got = S.loads(struct.pack('<QQQ', 0x112, 7, 1) + rec + K0 + b'trailing garbage')
    assert_same(got[0], np.array([True, False]))
    dup = S.loads(header(2) + v2([1], data=ONE) + v2([1], data=struct.pack('<f', 2)) +
                  struct.pack('<Q', 2) + (struct.pack('<Q', 1) + b'a') * 2)
    assert list(dup) == ['a'] and dup['a'][0] == 2
