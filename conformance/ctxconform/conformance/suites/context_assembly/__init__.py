"""The context-assembly conformance suite: a path through a Loom tree assembled into a completion request."""
