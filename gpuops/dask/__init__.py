"""gpuops operators over Dask arrays (issue 19): ``gpuops.dask.reduce`` holds the tree reductions."""
