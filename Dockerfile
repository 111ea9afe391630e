# The selective-build Action: the C++ toolchain and the bot.
FROM python:3.11-slim-bookworm

# Pinned to bookworm's versions so the toolchain (and so the sizes) are reproducible.
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        g++=4:12.2.0-3 \
        binutils=2.40-2 \
        git=1:2.39.5-0+deb12u3 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/selective-build
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY scripts ./scripts
RUN bash scripts/setup.sh --runtime

ENTRYPOINT ["python", "-m", "bot"]
CMD ["action"]
