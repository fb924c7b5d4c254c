"""Permissive twins: second implementations of each spec, apart from the reference, taking every liberty the spec allows."""
