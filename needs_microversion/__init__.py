"""needs-microversion: decide whether an HTTP API change needs a new microversion."""

__version__ = "0.1.0"
