"""One module per CLI command (`python -m bot <command>`); bot/cli.py only parses and dispatches."""
