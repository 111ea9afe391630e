# The selective-build Action: the C++ toolchains and the package (the bot, the runtime
# sources and the kernel libraries it builds for app repositories that carry none).
FROM python:3.11-slim-bookworm

# Pinned to bookworm's versions so the toolchains (and so the sizes) are reproducible: the
# host compiler, the cross toolchains of the architectures targets are measured for
# (aarch64 Linux, run under qemu-user; bare-metal Cortex-M with newlib-nano, size only), and
# bubblewrap, the sandbox PR code runs in (bot/safety/sandbox.py; where a container refuses namespaces,
# the bot falls back to a dedicated uid).
# tests/test_image_install.py checks that the machine the tests run on has these versions.
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        g++=4:12.2.0-3 \
        binutils=2.40-2 \
        git=1:2.39.5-0+deb12u3 \
        g++-aarch64-linux-gnu=4:12.2.0-3 \
        qemu-user=1:7.2+dfsg-7+deb12u18+b3 \
        gcc-arm-none-eabi=15:12.2.rel1-1 \
        libnewlib-arm-none-eabi=3.3.0-1.3+deb12u1 \
        libstdc++-arm-none-eabi-newlib=15:12.2.rel1-1+23 \
        bubblewrap=0.8.0-2+deb12u1 \
    && rm -rf /var/lib/apt/lists/*

# The package carries native/ and kernels/ into site-packages (setup.py): the image needs no
# checkout of the tool at run time. tests/test_image_install.py runs this same install.
WORKDIR /opt/selective-build
COPY pyproject.toml setup.py README.md ./
COPY bot ./bot
COPY native ./native
COPY kernels ./kernels
RUN pip install --no-cache-dir .

# The console script, not `python -m bot`: the workspace (the app repo, the working
# directory) is never on the module search path, so a PR's bot/ directory cannot shadow the tool.
ENTRYPOINT ["selective-build"]
CMD ["action"]
