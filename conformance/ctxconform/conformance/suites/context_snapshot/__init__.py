"""The context-snapshot conformance suite: immutable snapshots of context items whose content is Git blobs."""
