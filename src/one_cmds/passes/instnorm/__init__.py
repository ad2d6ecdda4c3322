"""``fuse_instnorm`` (optimization.md §5.8) and the decomposed instance normalizations it
recognizes (:mod:`.patterns`)."""
