"""`python -m bridge` runs the askbridge CLI."""

from bridge.cli import main

main()
