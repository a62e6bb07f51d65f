"""``python -m navicite`` runs the command line."""

from navicite.cli import main

main()
