"""The steps of a build, each a function on a Model."""
