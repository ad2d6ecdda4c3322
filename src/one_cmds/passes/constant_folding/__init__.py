"""Constant folding (optimization.md §5.21), one pass per module: an operator whose operands
are all constant becomes constants holding its results, computed by the interpreter's kernel
(fused activation included); the operator disappears with its origin (§9). The folded
constants keep the quantization parameters of the results they replace.

DepthwiseConv2D and FullyConnected fold only with a fused activation NONE, RELU,
RELU_N1_TO_1 or RELU6: LiteRT's float kernels ignore a fused TANH while the interpreter's
kernels apply it (the reference folds TANH as NONE, as LiteRT runs it).
"""
