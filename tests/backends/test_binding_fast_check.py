"""One binding rule set (issue 32): the predicate every fast path binds through (``BindingPlan.fast_check``) and
the common path of ``BindingPlan.check`` decide nothing the general rules (``BindingPlan.check_all``) would not.

For drawn buffer sets (right and wrong dtype and size, non-contiguous views, read-only outputs, outputs aliasing
inputs, partial overlaps, subclasses, arrays of another type, misaligned views, wrong containers) the exact
predicate says yes only where ``check_all`` accepts the very buffers given, each exactly the tensor's dtype and
1-D shape, with nothing shared; ``check`` returns what ``check_all`` returns; and a compiled operator's
``execute`` (the NumPy backend's fast path, the CuPy code path's ``check``) gives the general path's bits or its
error. A CuPy-shaped array (flags without ``writeable``) binds without reading a flag it lacks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import to_backend, to_host
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gpuops
from gpuops import DataType, ElementWiseAddOperatorDesc, ElementWiseExpOperatorDesc, TensorDesc
from gpuops.arrays import call as general_call
from gpuops.backends import REGISTRY, cupy_backend
from gpuops.backends.base import Backend, FastPaths
from gpuops.binding import BindingPlan, FastCheck, Slot

F32 = DataType.FLOAT32
N = 64
T = TensorDesc(F32, (N,))
DESCS: dict[str, Any] = {
    "add": ElementWiseAddOperatorDesc(T, T, T),  # two inputs, in place allowed
    "exp": ElementWiseExpOperatorDesc(T, T),  # one input
}


def plan_of(desc: Any, backend: Any) -> BindingPlan:
    return BindingPlan(
        desc, desc.row, backend.array_type, backend.pointer, backend.may_overlap, backend.name,
        host=backend.binds_host_memory,
    )  # fmt: skip


def graph_plan(backend: Any, inputs: int) -> BindingPlan:
    """A compiled graph's plan (``BindingPlan.from_slots``): ``inputs`` float32 inputs, one output, no sharing."""

    def slot(role: str) -> Slot:
        return Slot(role, T, np.dtype(np.float32), T.total_tensor_size_in_bytes or 0, 0)

    ins = tuple(slot(f"inputs[{k}]") for k in range(inputs))
    return BindingPlan.from_slots(
        "GRAPH", ins, (slot("outputs[0]"),), backend.array_type, backend.pointer, backend.may_overlap, backend.name,
        host=backend.binds_host_memory,
    )  # fmt: skip


def values(n: int, seed: int, dtype: Any = np.float32) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(n) * 10).astype(dtype)


class Sub(np.ndarray):
    pass


# --- Buffer sets from recipes (each recipe builds the same set afresh, on NumPy or a device) --------------------------

HOST_ONLY = {"read-only", "big-endian", "metadata", "subclass", "memmap"}
SIMPLE = [
    "fresh", "fresh", "fresh", "long", "short", "float64", "int32", "2-D", "0-d", "strided", "reversed", "list",
    "None", "wrong type", "misaligned", *sorted(HOST_ONLY),
]  # fmt: skip


def _misaligned(xp: Any, backend: Any, n: int, misalign: int) -> Any:
    big = to_backend(xp, np.zeros(n * 4 + 32, np.uint8))
    start = (-backend.pointer(big)) % 16 + misalign
    view = big[start : start + n * 4].view(np.float32)
    view[...] = to_backend(xp, values(n, 7))
    return view


def build(xp: Any, backend: Any, recipe: tuple[Any, ...]) -> tuple[Any, Any, list[Any]]:
    """``(inputs, outputs, arrays whose bytes are compared)`` for a recipe ``(container, buffers)``; each buffer
    ``(kind, x, y)``; the output last."""
    container, bufs = recipe
    host = xp is np
    pool = to_backend(xp, values(4 * N, 99))
    made: list[Any] = []
    kept: list[Any] = [pool]
    for k, (kind, x, y) in enumerate(bufs):
        b: Any
        if kind == "fresh":
            b = to_backend(xp, values(N, k))
        elif kind == "long":
            b = to_backend(xp, values(N + 1 + x % 3, k))
        elif kind == "short":
            b = to_backend(xp, values(N - 1, k))
        elif kind == "float64":
            b = to_backend(xp, values(N, k, np.float64))
        elif kind == "int32":
            b = to_backend(xp, np.arange(N, dtype=np.int32))
        elif kind == "2-D":
            b = to_backend(xp, values(N, k)).reshape(8, N // 8)
        elif kind == "0-d":
            b = to_backend(xp, np.full((), 1.5, np.float32))
        elif kind == "strided":
            b = to_backend(xp, values(2 * N, k))[::2]
        elif kind == "reversed":
            b = to_backend(xp, values(N, k))[::-1]
        elif kind == "list":
            b = values(N, k).tolist()
        elif kind == "None":
            b = None
        elif kind == "wrong type":  # a host array on a device; on the host, a device-like stand-in
            b = values(N, k) if not host else FakeDeviceArray(values(N, k))
        elif kind == "misaligned":
            b = _misaligned(xp, backend, N, 1 + x % 3 if x % 2 else 4 * (1 + x % 3))  # by bytes, or whole elements
        elif kind == "read-only":
            b = values(N, k)
            b.flags.writeable = False
        elif kind == "big-endian":
            b = values(N, k, ">f4")
        elif kind == "metadata":  # equal to float32, another dtype object
            b = values(N, k).view(np.dtype(np.float32, metadata={"k": 1}))
        elif kind == "subclass":
            b = values(N, k).view(Sub)
        elif kind == "memmap":
            b = values(N, k).view(np.memmap)
        elif kind == "pool":  # a view of one shared allocation: disjoint, identical or partly overlapping
            b = pool[x : x + y]
        elif kind == "same":  # the very object bound before
            b = made[x % k]
        elif kind == "view":  # the same memory as a buffer bound before, another object
            prev = made[x % k]
            b = prev[:] if hasattr(prev, "shape") and prev.shape else prev
        else:
            raise AssertionError(kind)
        made.append(b)
        if hasattr(b, "shape") and not isinstance(b, FakeDeviceArray):
            kept.append(b)
    ins, outs = made[:-1], made[-1:]
    if container == "tuple":
        return tuple(ins), tuple(outs), kept
    if container == "input missing":
        return ins[:-1], outs, kept
    if container == "extra output":
        return ins, [*outs, outs[0]], kept
    return ins, outs, kept


def buffer_recipe(k: int, host: bool) -> st.SearchStrategy[tuple[str, int, int]]:
    kinds = [s for s in SIMPLE if host or s not in HOST_ONLY]
    options = [
        st.tuples(st.sampled_from(kinds), st.integers(0, 5), st.just(0)),
        st.tuples(st.just("pool"), st.integers(0, 3 * N), st.sampled_from([N, N, N, N - 1, N + 1])),
        st.tuples(st.just("pool"), st.sampled_from([0, N, 2 * N, 3 * N]), st.just(N)),  # disjoint or identical
    ]
    if k:
        options.append(st.tuples(st.sampled_from(["same", "view"]), st.integers(0, k - 1), st.just(0)))
    return st.one_of(options)


def buffer_sets(inputs: int, host: bool) -> st.SearchStrategy[tuple[Any, ...]]:
    container = st.sampled_from(["list", "list", "list", "tuple", "input missing", "extra output"])
    return st.tuples(container, st.tuples(*(buffer_recipe(k, host) for k in range(inputs + 1))))


def outcome(fn: Callable[[], Any], kept: list[Any]) -> tuple[Any, ...]:
    """What a call did: its error (type and text, addresses blanked) or its result, and every array's bytes."""
    try:
        result = fn()
        got: Any = ("ok", None if result is None else to_host(result).tobytes())
    except Exception as exc:  # the error itself is compared
        got = ("error", type(exc), re.sub("0x[0-9a-f]+", "0x?", str(exc)))
    return (*got, [to_host(a).tobytes() for a in kept])


def described(plan: BindingPlan, result: tuple[Any, Any, bool], ins: Any, outs: Any) -> tuple[Any, ...]:
    """A check's result as comparable facts: per buffer, whether it is the object given, and its address, shape
    and dtype; and ``aliased``."""
    given = [*ins, *outs]

    def one(k: int, b: Any) -> Any:
        return None if b is None else (b is given[k], plan.pointer(b), tuple(b.shape), str(b.dtype))

    bufs = [*result[0], *result[1]]
    return (*(one(k, b) for k, b in enumerate(bufs)), result[2])


def checked(plan: BindingPlan, how: Callable[..., Any], ins: Any, outs: Any) -> tuple[Any, ...]:
    try:
        return ("ok", described(plan, how(ins, outs), ins, outs))
    except Exception as exc:
        return ("error", type(exc), str(exc))


def assert_predicates_sound(plan: BindingPlan, ins: Any, outs: Any) -> bool:
    """The exact predicate's yes means ``check_all`` takes the very buffers, exact, nothing shared; ``check``
    decides as ``check_all``; the argument forms of the predicate agree with it. Returns the exact verdict."""
    fast = plan.fast_check()
    assert fast is not None and fast.exact
    yes = fast.accepts(ins, outs)
    sequences = all(type(s) in (list, tuple) for s in (ins, outs))
    if sequences and len(ins) == len(fast.inputs) and len(outs) == 1:
        assert fast.accepts_buffers(*ins, outs[0]) is yes
        if yes:
            assert fast.accepts_inputs(*ins)
    if yes:
        got_ins, got_outs, aliased = plan.check_all(ins, outs)
        assert not aliased
        assert all(g is b for g, b in zip([*got_ins, *got_outs], [*ins, *outs], strict=True))
        for b, (dtype, n) in zip([*ins, *outs], [*fast.inputs, fast.output], strict=True):
            assert type(b) is plan.array_type and b.dtype == dtype and tuple(b.shape) == (n,)
            assert b.flags.c_contiguous
    assert checked(plan, plan.check, ins, outs) == checked(plan, plan.check_all, ins, outs)
    return bool(yes)


# --- The predicate against the rules, on NumPy and on the device (CuPy, else the CUDA emulator) -----------------------

HYPOTHESIS = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.mark.parametrize("inputs", [1, 2, 3])
@HYPOTHESIS
@given(data=st.data())
def test_fast_check_says_yes_only_where_check_all_takes_the_buffers_as_they_are(
    backend: str, inputs: int, data: st.DataObject
) -> None:
    impl = gpuops.backends.load(backend)
    xp = impl.xp
    plans = [graph_plan(impl, inputs)]
    if inputs <= 2:
        plans.append(plan_of(DESCS["exp" if inputs == 1 else "add"], impl))
    recipe = data.draw(buffer_sets(inputs, xp is np))
    for plan in plans:
        ins, outs, _ = build(xp, impl, recipe)
        assert_predicates_sound(plan, ins, outs)


@pytest.mark.parametrize("name", ["add", "exp"])
def test_fast_check_accepts_exact_buffers_and_refuses_each_broken_rule(backend: str, name: str) -> None:
    """Not a vacuous predicate: fresh exact buffers pass; each rule broken alone fails it (and check_all either
    raises or, for the binding it takes otherwise, gives views, aliasing or another dtype object)."""
    impl = gpuops.backends.load(backend)
    xp = impl.xp
    plan = plan_of(DESCS[name], impl)
    fast = plan.fast_check()
    assert isinstance(fast, FastCheck)
    n_in = len(fast.inputs)

    def recipe(out: tuple[str, int, int], first: tuple[str, int, int] = ("fresh", 0, 0)) -> Any:
        return ("list", (first, *[("fresh", 0, 0)] * (n_in - 1), out))

    fresh = ("fresh", 0, 0)
    assert assert_predicates_sound(plan, *build(xp, impl, recipe(fresh))[:2])
    assert assert_predicates_sound(plan, *build(xp, impl, ("tuple", recipe(fresh)[1]))[:2])
    disjoint = build(xp, impl, recipe(("pool", 2 * N, N), ("pool", 0, N)))
    assert assert_predicates_sound(plan, *disjoint[:2])  # views of one allocation, apart
    broken = ["long", "short", "float64", "int32", "2-D", "0-d", "strided", "reversed", "list", "None", "wrong type"]
    broken += ["misaligned"] if xp is not np else ["read-only", "big-endian", "metadata", "subclass", "memmap"]
    for kind in broken:
        ins, outs, _ = build(xp, impl, recipe((kind, 1, 0)))  # misaligned by 2 bytes
        assert not assert_predicates_sound(plan, ins, outs), f"output {kind}"
        if kind != "read-only":  # an input may be read-only
            ins, outs, _ = build(xp, impl, recipe(fresh, (kind, 1, 0)))
            assert not assert_predicates_sound(plan, ins, outs), f"input {kind}"
    for out in [("same", 0, 0), ("view", 0, 0), ("pool", N // 2, N)]:  # in place, same memory, partial overlap
        ins, outs, _ = build(xp, impl, recipe(out, ("pool", 0, N)))
        assert not assert_predicates_sound(plan, ins, outs), f"output {out}"
    for container in ["input missing", "extra output"]:
        ins, outs, _ = build(xp, impl, (container, recipe(fresh)[1]))
        assert not assert_predicates_sound(plan, ins, outs), container


# --- A CuPy-shaped array: no WRITEABLE flag (CuPy's flags are c_contiguous, f_contiguous and owndata) -----------------


class _Flags:
    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, c: bool, f: bool, own: bool) -> None:
        self.c_contiguous, self.f_contiguous, self.owndata = c, f, own


class _Pointer:
    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


class FakeDeviceArray:
    """CuPy's binding surface over NumPy memory, and no more: ``flags`` lacks ``writeable``; ``data.ptr``."""

    def __init__(self, arr: np.ndarray, base: FakeDeviceArray | None = None) -> None:
        self._arr = arr
        self.base = base

    shape = property(lambda self: self._arr.shape)
    strides = property(lambda self: self._arr.strides)
    dtype = property(lambda self: self._arr.dtype)
    ndim = property(lambda self: self._arr.ndim)
    size = property(lambda self: self._arr.size)
    nbytes = property(lambda self: self._arr.nbytes)
    itemsize = property(lambda self: self._arr.itemsize)
    data = property(lambda self: _Pointer(self._arr.__array_interface__["data"][0]))
    flags = property(lambda self: _Flags(self._arr.flags.c_contiguous, self._arr.flags.f_contiguous, self.base is None))

    def __len__(self) -> int:
        return len(self._arr)

    def _root(self) -> FakeDeviceArray:
        return self if self.base is None else self.base

    def __getitem__(self, key: Any) -> FakeDeviceArray:
        return FakeDeviceArray(self._arr[key], self._root())

    def reshape(self, *shape: Any) -> FakeDeviceArray:
        return FakeDeviceArray(self._arr.reshape(*shape), self._root())

    def view(self, dtype: Any) -> FakeDeviceArray:
        return FakeDeviceArray(self._arr.view(dtype), self._root())


def fake_plan(desc: Any) -> BindingPlan:
    """The CuPy backend's binding (its own ``pointer`` and ``may_overlap``) over :class:`FakeDeviceArray`."""
    return BindingPlan(
        desc, desc.row, FakeDeviceArray, cupy_backend.pointer, cupy_backend.may_overlap, "cupy", host=False
    )


def fake(n: int = N, seed: int = 0) -> FakeDeviceArray:
    return FakeDeviceArray(values(n, seed))


def test_cupy_shaped_buffers_bind_without_a_writeable_flag() -> None:
    """Every execute on a real GPU once failed here: ``check`` read ``flags.writeable``, which CuPy lacks."""
    plan = fake_plan(DESCS["add"])
    a, b, o = fake(), fake(seed=1), fake(seed=2)
    ins, outs, aliased = plan.check([a, b], [o])
    assert ins[0] is a and ins[1] is b and outs[0] is o and not aliased
    ins, outs, aliased = plan.check([a, b], [a])  # in place: the general rules decide, without the flag too
    assert outs[0] is a and aliased
    pool = FakeDeviceArray(values(3 * N, 3))
    with pytest.raises(gpuops.BindingError, match="output_tensor partially overlaps a_tensor"):
        plan.check([pool[0:N], b], [pool[N // 2 : N // 2 + N]])
    raw = FakeDeviceArray(np.zeros(4 * N + 8, np.uint8))
    start = -cupy_backend.pointer(raw) % 8 + 2
    with pytest.raises(gpuops.BindingError, match="output_tensor buffer address .* is 2 bytes past a multiple of 4"):
        plan.check([a, b], [raw[start : start + 4 * N].view(np.float32)])


@settings(deadline=None, max_examples=200)
@given(recipe=buffer_sets(2, host=False))
def test_cupy_shaped_fast_check_decides_as_the_rules(recipe: tuple[Any, ...]) -> None:
    plan = fake_plan(DESCS["add"])
    fast = plan.fast_check()
    assert fast is not None
    ins, outs, _ = build(np, _FakeBackend, recipe)
    wrapped: dict[int, FakeDeviceArray] = {}  # NumPy arrays as fake device arrays over their memory, one per object

    def wrap(b: Any) -> Any:
        return wrapped.setdefault(id(b), FakeDeviceArray(b)) if type(b) is np.ndarray else b

    ins, outs = type(ins)(map(wrap, ins)), type(outs)(map(wrap, outs))
    assert_predicates_sound(plan, ins, outs)


class _FakeBackend:
    pointer = staticmethod(lambda b: int(b.__array_interface__["data"][0]))


# --- The fast paths give the general path's bits, or its error --------------------------------------------------------


def general_of(op: Any) -> Callable[[Any, Any], None]:
    """``execute`` through ``check_all`` alone: every rule, no predicate."""
    unwrap, binding, kernel = op._backend.unwrap, op._binding, op._kernel

    def execute(inputs: Any, outputs: Any) -> None:
        kernel(*binding.check_all(unwrap(inputs), unwrap(outputs)))

    return execute


def compiled(device: gpuops.Device, desc: Any) -> Any:
    return device.compile_operator(device.create_operator(desc))


@pytest.mark.parametrize("name", ["add", "exp"])
@settings(deadline=None, max_examples=150)
@given(data=st.data())
def test_numpy_fast_path_gives_the_general_paths_bits_or_error(name: str, data: st.DataObject) -> None:
    op = compiled(gpuops.Device("numpy"), DESCS[name])
    assert "execute" in vars(op), "the NumPy backend's fast path is installed"
    recipe = data.draw(buffer_sets(1 if name == "exp" else 2, host=True))
    ins, outs, kept = build(np, op._backend, recipe)
    fast = outcome(lambda: op.execute(ins, outs), kept)
    ins, outs, kept = build(np, op._backend, recipe)
    slow = outcome(lambda: general_of(op)(ins, outs), kept)
    assert fast == slow


DEVICE_CASES = {
    "plain": ("list", (("fresh", 0, 0), ("fresh", 0, 0), ("fresh", 0, 0))),
    "tuples": ("tuple", (("fresh", 0, 0), ("fresh", 0, 0), ("fresh", 0, 0))),
    "disjoint views": ("list", (("pool", 0, N), ("pool", N, N), ("pool", 2 * N, N))),
    "in place": ("list", (("pool", 0, N), ("fresh", 0, 0), ("same", 0, 0))),
    "same memory, other object": ("list", (("pool", 0, N), ("fresh", 0, 0), ("view", 0, 0))),
    "partial overlap": ("list", (("pool", 0, N), ("fresh", 0, 0), ("pool", N // 2, N))),
    "long buffers": ("list", (("long", 1, 0), ("fresh", 0, 0), ("long", 2, 0))),
    "short input": ("list", (("short", 0, 0), ("fresh", 0, 0), ("fresh", 0, 0))),
    "strided output": ("list", (("fresh", 0, 0), ("fresh", 0, 0), ("strided", 0, 0))),
    "2-D input": ("list", (("2-D", 0, 0), ("fresh", 0, 0), ("fresh", 0, 0))),
    "float64 output": ("list", (("fresh", 0, 0), ("fresh", 0, 0), ("float64", 0, 0))),
    "misaligned output": ("list", (("fresh", 0, 0), ("fresh", 0, 0), ("misaligned", 1, 0))),
    "wrong type": ("list", (("wrong type", 0, 0), ("fresh", 0, 0), ("fresh", 0, 0))),
    "input missing": ("input missing", (("fresh", 0, 0), ("fresh", 0, 0), ("fresh", 0, 0))),
}


@pytest.mark.parametrize("case", list(DEVICE_CASES))
def test_execute_gives_the_general_paths_bits_or_error(device: gpuops.Device, xp: Any, case: str) -> None:
    """On NumPy the fast path, on the CuPy code path (CuPy or the CUDA emulator) ``check``'s predicate, against
    ``check_all``: the same output bits, or the same error with nothing written."""
    op = compiled(device, DESCS["add"])
    impl = device.backend_impl
    ins, outs, kept = build(xp, impl, DEVICE_CASES[case])
    fast = outcome(lambda: op.execute(ins, outs), kept)
    ins, outs, kept = build(xp, impl, DEVICE_CASES[case])
    slow = outcome(lambda: general_of(op)(ins, outs), kept)
    assert fast == slow
    if case in ("plain", "tuples", "disjoint views", "long buffers"):
        assert fast[0] == "ok"


# --- The convenience call's fast path ---------------------------------------------------------------------------------


CALL_KINDS = ["shaped", "shaped", "flat", "transposed", "float64", "list", "short", "pool", "view"]
OUT_KINDS = ["none", "none", "shaped", "flat", "read-only", "strided", "same", "pool", "float64", "tuple"]


def call_args(sizes: tuple[int, ...], recipe: tuple[Any, ...]) -> tuple[tuple[Any, ...], Any, list[np.ndarray]]:
    (ka, kb), (ko, x) = recipe
    pool = values(4 * N, 99)
    made: list[Any] = []
    for k, kind in enumerate((ka, kb)):
        if kind == "shaped":
            v: Any = values(N, k).reshape(sizes)
        elif kind == "flat":
            v = values(N, k)
        elif kind == "transposed":
            v = values(N, k).reshape(sizes[::-1]).T
        elif kind == "float64":
            v = values(N, k, np.float64).reshape(sizes)
        elif kind == "list":
            v = values(N, k).reshape(sizes).tolist()
        elif kind == "short":
            v = values(N - 1, k)
        elif kind == "pool":
            v = pool[x : x + N].reshape(sizes)
        else:
            v = made[0] if made else values(N, k).reshape(sizes)
        made.append(v)
    o: Any
    if ko == "none":
        o = None
    elif ko == "shaped":
        o = np.zeros(sizes, np.float32)
    elif ko == "flat":
        o = np.zeros(N, np.float32)
    elif ko == "read-only":
        o = np.zeros(sizes, np.float32)
        o.flags.writeable = False
    elif ko == "strided":
        o = np.zeros(2 * N, np.float32)[::2]
    elif ko == "same":
        o = made[0]
    elif ko == "pool":
        o = pool[2 * x % (3 * N) : 2 * x % (3 * N) + N].reshape(sizes)
    elif ko == "float64":
        o = np.zeros(sizes, np.float64)
    else:
        o = (np.zeros(sizes, np.float32),)
    kept = [a for a in (*made, o, pool) if isinstance(a, np.ndarray)]
    return tuple(made), o, kept


@pytest.mark.parametrize("sizes", [(N,), (8, N // 8)], ids=["1-D", "2-D"])
@settings(deadline=None, max_examples=120)
@given(
    recipe=st.tuples(
        st.tuples(st.sampled_from(CALL_KINDS), st.sampled_from(CALL_KINDS)),
        st.tuples(st.sampled_from(OUT_KINDS), st.integers(0, 3 * N)),
    )
)
def test_convenience_fast_path_gives_the_general_calls_bits_or_error(
    sizes: tuple[int, ...], recipe: tuple[Any, ...]
) -> None:
    op = compiled(gpuops.Device("numpy"), ElementWiseAddOperatorDesc(*(TensorDesc(F32, sizes),) * 3))
    assert op._fast_call is not None
    inputs, out, kept = call_args(sizes, recipe)
    fast = outcome(lambda: op(*inputs, out=out), kept)
    inputs, out, kept = call_args(sizes, recipe)
    slow = outcome(lambda: general_call(op, inputs, out), kept)
    assert fast == slow


# --- The fast path is part of the backend protocol --------------------------------------------------------------------


def test_every_backend_declares_its_fast_paths() -> None:
    assert "fast_paths" in vars(Backend)
    for module, cls in REGISTRY.values():
        try:
            backend_cls = getattr(__import__(module, fromlist=[cls]), cls)
        except ImportError:
            continue
        assert callable(getattr(backend_cls, "fast_paths", None)), cls
    assert cupy_backend.CupyBackend.fast_paths(None, None, None, None) is None
    op = compiled(gpuops.Device("numpy"), DESCS["add"])
    paths = op._backend.fast_paths(op._kernel, op.lowering, op._binding, op._general_execute())
    assert isinstance(paths, FastPaths) and paths.call is not None
