"""``transform_min_max_to_relu6`` and ``transform_min_relu_to_relu6`` (optimization.md §5.20):
``Maximum(Minimum(x, 6), 0)`` and ``Relu(Minimum(x, 6))`` become ``Relu6(x)``; the shared
matching and rewrite are in :mod:`.clip`."""
