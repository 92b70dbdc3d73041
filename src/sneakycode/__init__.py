"""SneakyCode: a terminal coding agent with an honest tool layer."""

__version__ = "0.1.0"
