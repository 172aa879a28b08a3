"""``mx.kvstore_server`` (MXNet's top-level module of the parameter-server process, which
defines no public name): a launcher's server or scheduler process ends at ``import mxnet``
under xnd (xnd/frontend/distributed.py), there being no server to run."""
