"""The command line's parts: operator short names (``names``), the ``caps`` tables (``caps``)
and Unix stream behaviour (``streams``). The entry point is ``gpuops.__main__``."""
