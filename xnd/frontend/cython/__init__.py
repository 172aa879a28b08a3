"""``mx.cython`` (MXNet's ``mxnet/cython/``): the Cython sources of MXNet's optional C
bindings.  The package defines no public name; xnd has no C bindings to build (its arrays
are JAX arrays)."""
