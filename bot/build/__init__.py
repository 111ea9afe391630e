"""Making and measuring runtimes: CMake builds (ccache, sandboxed), architectures and toolchains,
the bundled runtime sources, binary sizes, running programs, and the build lock."""
