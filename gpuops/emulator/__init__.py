"""Run the CuPy backend's CUDA kernels on the CPU: host C++ compilation (``build``) and a CuPy-like runtime."""
