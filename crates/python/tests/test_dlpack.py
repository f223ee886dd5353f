"""The DLPack protocol of evogpu on host memory (no GPU needed): the producer (DeviceView) read by NumPy
without a copy, versioned and unversioned capsules, deleters and capsule destructors, the consumer reading
NumPy's capsules (strides, float32, consumed capsules renamed), and the checks of gpu_tensors."""

import ctypes
import sys

import numpy as np
import pytest

import evogpu
from evogpu import _evogpu
from conftest import RASTRIGIN_BOX, rastrigin

ROWS = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]


class Unversioned:
    """A producer of DLPack 0.x: its __dlpack__ takes no max_version, so consumers fall back to "dltensor"."""

    def __init__(self, view):
        self.view = view

    def __dlpack__(self, stream=None):
        return self.view.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.view.__dlpack_device__()


def test_numpy_reads_a_view_without_a_copy():
    view = _evogpu._host_view(ROWS)
    assert view.shape == (2, 3) and view.dtype == "float32" and view.__dlpack_device__() == (1, 0)
    array = np.from_dlpack(view)
    assert array.dtype == np.float32 and array.shape == (2, 3)
    np.testing.assert_array_equal(array, np.float32(ROWS))
    assert array.ctypes.data == view.data_ptr
    assert view.exports == 1
    del array
    assert view.exports == 0


@pytest.mark.parametrize("producer", [lambda view: view, Unversioned], ids=["versioned", "unversioned"])
def test_an_export_outlives_its_view_and_is_released_by_the_consumer(producer):
    view = _evogpu._host_view(ROWS)
    array = np.from_dlpack(producer(view))
    state = view
    del view
    np.testing.assert_array_equal(array, np.float32(ROWS))
    assert state.exports == 1
    del array
    assert state.exports == 0


@pytest.mark.parametrize("max_version, name", [(None, "dltensor"), ((1, 0), "dltensor_versioned")])
def test_an_unconsumed_capsule_releases_its_export(max_version, name):
    view = _evogpu._host_view(ROWS)
    capsule = view.__dlpack__(max_version=max_version)
    assert f'"{name}"' in repr(capsule)
    assert view.exports == 1
    del capsule
    assert view.exports == 0


def test_the_producer_refuses_what_it_cannot_do():
    view = _evogpu._host_view(ROWS)
    with pytest.raises(ValueError, match="stream=None"):
        view.__dlpack__(stream=7)
    with pytest.raises(BufferError, match="no copies"):
        view.__dlpack__(copy=True)
    with pytest.raises(BufferError, match=r"exported there only"):
        view.__dlpack__(dl_device=(2, 0))
    assert view.exports == 0
    view.__dlpack__(dl_device=(1, 0), copy=False, stream=-1)


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device_type", ctypes.c_int32),
        ("device_id", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("code", ctypes.c_uint8),
        ("bits", ctypes.c_uint8),
        ("lanes", ctypes.c_uint16),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


def test_the_capsule_holds_the_view_with_explicit_strides():
    view = _evogpu._host_view(ROWS)
    capsule = view.__dlpack__()
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    # DLManagedTensor starts with its DLTensor.
    tensor = DLTensor.from_address(get_pointer(capsule, b"dltensor"))
    assert tensor.data == view.data_ptr
    assert (tensor.device_type, tensor.device_id, tensor.ndim) == (1, 0, 2)
    assert (tensor.code, tensor.bits, tensor.lanes, tensor.byte_offset) == (2, 32, 1, 0)
    assert [tensor.shape[0], tensor.shape[1]] == [2, 3]
    # Row-major strides in elements, not the null some consumers no longer accept.
    assert bool(tensor.strides) and [tensor.strides[0], tensor.strides[1]] == [3, 1]


def test_the_consumer_reads_numpy_vectors_of_any_stride():
    values = np.arange(10.0)
    assert _evogpu._read_dlpack(values, 10) == list(values)
    assert _evogpu._read_dlpack(values[::2], 5) == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert _evogpu._read_dlpack(values[::-1][:3], 3) == [9.0, 8.0, 7.0]
    assert _evogpu._read_dlpack(values.reshape(10, 1), 10) == list(values)
    # float32 is widened exactly.
    assert _evogpu._read_dlpack(np.float32([0.1, 2.5]), 2) == [float(np.float32(0.1)), 2.5]


def test_the_consumer_refuses_other_shapes_and_dtypes():
    with pytest.raises(ValueError, match=r"must return 4 values, shape \(4,\) or \(4, 1\), got shape \[3\]"):
        _evogpu._read_dlpack(np.zeros(3), 4)
    with pytest.raises(ValueError, match=r"got shape \[2, 2\]"):
        _evogpu._read_dlpack(np.zeros((2, 2)), 2)
    with pytest.raises(ValueError, match="float64 or float32 values, got int64"):
        _evogpu._read_dlpack(np.arange(3), 3)
    with pytest.raises(TypeError, match="__dlpack__"):
        _evogpu._read_dlpack([1.0, 2.0], 2)


@pytest.mark.parametrize("max_version, name", [(None, "dltensor"), ((1, 0), "dltensor_versioned")])
def test_a_consumed_capsule_is_renamed_and_its_deleter_runs(max_version, name):
    values = np.arange(4.0)
    references = sys.getrefcount(values)
    capsule = values.__dlpack__(max_version=max_version)
    assert sys.getrefcount(values) > references
    assert _evogpu._read_dlpack(capsule, 4) == [0.0, 1.0, 2.0, 3.0]
    assert f'"used_{name}"' in repr(capsule)
    # NumPy's deleter dropped the reference its tensor held.
    assert sys.getrefcount(values) == references
    with pytest.raises(ValueError, match="already consumed"):
        _evogpu._read_dlpack(capsule, 4)


def test_the_consumer_reads_the_producer():
    view = _evogpu._host_view([[1.0], [2.5], [-3.0]])
    assert _evogpu._read_dlpack(view, 3) == [1.0, 2.5, -3.0]
    assert _evogpu._read_dlpack(Unversioned(view), 3) == [1.0, 2.5, -3.0]
    assert view.exports == 0


def test_gpu_tensors_is_checked_before_a_cuda_run():
    with pytest.raises(ValueError, match='gpu_tensors must be "torch", "cupy", "dlpack" or a function'):
        evogpu.minimize(rastrigin, RASTRIGIN_BOX, backend="cuda", gpu_tensors="jax", max_generations=1)


def test_a_missing_tensor_library_says_what_to_do():
    try:
        import torch  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("PyTorch is installed here")
    with pytest.raises(ImportError, match=r'gpu_tensors=\'torch\' needs torch installed; or pass gpu_tensors="dlpack"'):
        evogpu.minimize(rastrigin, RASTRIGIN_BOX, backend="cuda", max_generations=1)


def test_a_python_function_runs_ma_sw_chains_on_the_cpu():
    first = evogpu.minimize(rastrigin, RASTRIGIN_BOX, algorithm="ma-sw-chains", backend="cpu", seed=3,
                            max_evaluations=2000)
    again = evogpu.minimize(rastrigin, RASTRIGIN_BOX, algorithm="ma-sw-chains", backend="cpu", seed=3,
                            max_evaluations=2000)
    assert first.nfev >= 2000 and np.isfinite(first.fun)
    assert first.fun == again.fun
    np.testing.assert_array_equal(first.x, again.x)
