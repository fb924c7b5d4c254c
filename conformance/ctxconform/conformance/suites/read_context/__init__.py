"""The read-context conformance suite."""
