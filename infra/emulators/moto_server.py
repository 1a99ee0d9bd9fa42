"""moto_server for the test lanes' shared server (scripts/with-moto), without two pieces of
per-request work moto 5.2.1 repeats though their answer never changes while it runs:

1. Every request lists moto's package folder and stats each entry
   (backends.list_of_moto_modules) to ask whether the Host header names a service.
2. Every request lists the functions of its service's response class with
   inspect.getmembers (core.utils.method_names_from_class) to find the action's handler.

Both are computed once here and kept; the answers, and so moto's behaviour, are the same.
Everything else is moto as shipped; the flags are moto_server's own.
"""
import functools
import sys

from moto import backends
from moto.core import responses


def keep_lookups():
    """Computes the two lookups once and keeps them (the deploy rehearsal's moto too)."""
    modules = tuple(backends.list_of_moto_modules())
    backends.list_of_moto_modules = lambda: modules
    # Response classes are fixed once moto is imported, and so are their functions' names.
    responses.method_names_from_class = functools.lru_cache(maxsize=None)(
        lambda clazz, _names=responses.method_names_from_class: frozenset(_names(clazz)))


if __name__ == "__main__":
    keep_lookups()
    from moto.server import main

    main(sys.argv[1:])
