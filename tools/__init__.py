"""Developer scripts run with ``python -m tools.<name>`` (see the Makefile)."""
