"""Containing what a PR controls: the sandbox for PR code, safe file and YAML reading, redaction of
secrets, resource limits, and bounded directory walks."""
