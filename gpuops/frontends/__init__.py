"""Front-ends in the seeds' own vocabularies (TensorRT, oneDNN, OpenVINO) over the one core.

Each module only translates its calls into descriptors and runs them (see ``_common``):
``gpuops.frontends.tensorrt``, ``gpuops.frontends.onednn``, ``gpuops.frontends.openvino``.
"""
