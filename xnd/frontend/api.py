"""``mx.api`` (MXNet's ``mxnet/api.py``): where MXNet registers the functions of its C++ FFI
(``_init_api``); it defines no public name, and xnd has no C++ FFI to register."""
