"""Stage 4 of the pipeline: layout plans, pure arithmetic on sizes and strides (README "Architecture").

``launch_plan``: which of gpuops' element-wise kernels (flat or rows) a set of tensor layouts takes, with its
grid and size arguments; ``reduce_plan``: when a reduction splits into two passes, and the views each pass
reads. Both are pure (no CuPy), tested on the CPU, and used by the CuPy backend and the CUDA emulator alike.
"""
