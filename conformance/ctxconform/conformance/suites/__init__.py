"""The kit's own conformance suites, one package per spec, each exporting its `Spec`; run them with `ctxconform run`."""

__all__: list[str] = []
