"""Compiled operators and compiled graphs on Dask arrays, blockwise (``pip install gpuops[dask]``).

>>> import dask.array as da, numpy as np
>>> import gpuops.dask
>>> x = da.arange(12, dtype=np.float32, chunks=5).reshape(3, 4)
>>> row = da.from_array(np.float32([10, 20, 30, 40]), chunks=3)
>>> gpuops.dask.map_operator("add", x, row).compute(scheduler="threads")[0].tolist()
[10.0, 21.0, 32.0, 43.0]

``map_operator(operator, *arrays, output_type=None, **fields)`` runs one element-wise operator,
``map_graph(build, *arrays)`` a graph of element-wise operators written with a ``gpuops.GraphBuilder``
(``build(b, *inputs)`` returns the output Value or a list of them). Both return Dask arrays, lazily.

How it maps onto Dask, and nothing more:

- Broadcasting is Dask's: the arrays are aligned by ``dask.array.blockwise`` (NumPy's rules, shapes aligned
  on the right, chunks unified), so each task gets one chunk of each array. A chunk whose array has size 1
  along a dimension (or fewer dimensions) is read inside the chunk by DirectML's zero strides
  (``TensorDesc.broadcast``), not copied.
- DirectML's descriptors are shape-specific, so each task builds the descriptor of its own chunk shapes (a
  whole-array descriptor does not fit a chunk). The task graph carries only the operator's name and fields (or
  the ``build`` function): small and picklable, never a compiled kernel.
- Each chunk runs on the backend of its type: ``numpy.ndarray`` chunks on ``Device("numpy")``, ``cupy.ndarray``
  chunks on ``Device("cupy")`` (and the CUDA emulator's arrays on ``Device("emulator")``: the CuPy path, tested
  without a GPU). Compiled operators are cached per process, by backend and descriptor, so a
  worker compiles each chunk shape once (uneven chunks: a few shapes).
- The output data type is the one the operator's tables allow for the inputs (as ``GraphBuilder`` picks it),
  or ``output_type=``. Shapes, data types and fields are checked when the Dask array is made, with the
  descriptor of the whole arrays, so a mistake is raised there and not from a worker.

Only element-wise operators map blockwise: a reduction, a scan or a composite (softmax) reads across
chunks, and FILL_VALUE_SEQUENCE reads the element's index; those are refused with the reason. Reductions are Dask
tree reductions instead: ``reduce(x, function, axes)``, ``argmax``, ``argmin`` (``gpuops.dask.reductions``), and
softmax, log-softmax and mean-variance normalization are those reductions with blockwise passes between them
(``gpuops.dask.normalization``).
"""

from __future__ import annotations

from .blockwise import map_graph, map_operator
from .normalization import log_softmax, mean_variance_normalization, softmax
from .reductions import argmax, argmin, reduce

__all__ = [
    "argmax",
    "argmin",
    "log_softmax",
    "map_graph",
    "map_operator",
    "mean_variance_normalization",
    "reduce",
    "softmax",
]
