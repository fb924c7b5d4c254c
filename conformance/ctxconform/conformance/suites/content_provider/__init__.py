"""The content-provider (AGN-030) conformance suite."""
