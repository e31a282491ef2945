"""Conformance of gpuops against test data nobody here wrote (the ONNX backend node tests)."""
