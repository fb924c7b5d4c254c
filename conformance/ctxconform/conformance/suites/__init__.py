"""The conformance suites, one package per spec; run them with `ctxconform run`."""
