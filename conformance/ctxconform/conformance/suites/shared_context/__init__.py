"""The shared-context conformance suite."""
