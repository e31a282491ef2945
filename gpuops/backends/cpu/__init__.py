"""The CPU backend (``Device(backend="numpy")``) as a package of tiers.

Each row kind runs on the first of its tiers that applies (``tiers``): element-wise operators on the fast
execute (``fast``), a numba loop (``gpuops.backends.numba_loops``) or NumPy's ufuncs (``ufunc_kernels``); fused
groups on one numba loop or one blocked ufunc pass (``fused``); reductions on the fast execute, NumPy's pairwise
order on numba (``pairwise``, ``gpuops.backends.numba_reduce``) or NumPy's ufunc reductions (``reductions``);
scans on NumPy's ``accumulate`` (``scans``). Every tier gives the same bits.

==============  ======================================================================================
module          holds
==============  ======================================================================================
backend         ``NumpyBackend``: the backend protocol (``gpuops.backends.base``) over the tiers
policy          ``CpuPolicy``: every threshold, one frozen object (``policy.POLICY``, ``policy.override``)
threads         the Python thread pool, its block scheduler (``_parallel``), numba's launch guard
views           a tensor's view of a bound buffer, addresses, overlap, logical indices
tiers           the tier lists per row kind and the numba tier's selection
ufunc_kernels   ``NumpyKernel``: element-wise rows on NumPy's ufuncs, chunked, threaded where it pays
reductions      ``NumpyReduceKernel`` (ufunc reductions, threaded blocks) and reductions in passes
pairwise        the pairwise numba tier of reductions
scans           ``NumpyScanKernel``: cumulative sums and products
fused           ``_FusedRun``: a fused group in one blocked pass of ufunc kernels
fast            the fast execute for the common binding
dlpack          DLPack tensors (torch, JAX) as NumPy arrays; GPU and masked arrays refused
==============  ======================================================================================

``gpuops.backends.numpy_backend`` re-exports the names it used to define.
"""
