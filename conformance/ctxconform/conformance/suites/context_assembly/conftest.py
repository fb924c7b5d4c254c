"""The context-assembly suite needs no fixtures beyond `implementation`, which the harness provides."""
