"""The user-facing surfaces, laid out as MXNet's namespace: ``mx.a.b`` lives at
``xnd/frontend/a/b.py`` or ``a/`` (see README.md here)."""
