"""Console output (rich) and step logs."""
