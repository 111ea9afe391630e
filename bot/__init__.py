"""selective-build: keep on-device PyTorch runtimes small and correct."""
