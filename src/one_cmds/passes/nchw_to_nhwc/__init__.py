"""``convert_nchw_to_nhwc`` (optimization.md §5.25) and its per-operator rewrites
(:mod:`.layout_rules`)."""
