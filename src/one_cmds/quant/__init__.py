"""Quantization: calibration (record-minmax), qparam math, quantize passes, evaluation
(shared/spec/quantization.md)."""
