"""Speaking to GitHub: the Action's entry point, the API client, the token-holding poster, and the
workflow log."""
