"""Bots for every seat, at three levels; each decides from its seat's observation alone."""

from .bot import LEVELS, Bot, Level, decide, make_bot

__all__ = ["LEVELS", "Bot", "Level", "decide", "make_bot"]
