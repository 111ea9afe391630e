"""What the bot says about a PR: the report's data model, the verdict under a policy, escaping,
the markdown comment, terminal output, and the artifact that carries a report between jobs."""
