"""The one thing pyproject.toml does not hold: the hard bot's exact search in C
(ai/_solver.c).  It is optional: without a C compiler the install still succeeds and
ai/solver.py searches in Python, more slowly."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("ai._solver", ["ai/_solver.c"], optional=True)])
