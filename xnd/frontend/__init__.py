"""The user-facing surfaces (nd namespace, random, linalg, io, gluon, ...)."""
