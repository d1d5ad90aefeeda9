"""Persistence: match logs, results and history in SQLite or PostgreSQL (SQLAlchemy async).

The community's models live in :mod:`.social_models` and the problems' in
:mod:`.problem_models`, imported here so that the models' metadata is whole whichever
module is imported first."""

from . import problem_models as problem_models
from . import social_models as social_models
