"""`python -m bridge` runs the askbridge CLI."""

from bridge.cli.command import main

main()
