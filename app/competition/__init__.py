"""Competition: tournaments (Swiss and duplicate) run by the server (docs/tournaments.md).

- ``models.py``: what the routes take and answer;
- ``service.py``: a new tournament's checks, entries, the tournament as shown;
- ``store.py``: its rows read and written, each step decided once;
- ``director.py``: the task that runs the tournaments a node holds (their rounds, tables,
  time limits), one node per tournament;
- ``held.py``: each node's round tables kept to the rows (closed once decided, a
  withdrawn player's seat to a bot), whichever node directs;
- ``news.py``: the ``standings`` notices told to the players on their personal channel;
- ``swiss.py``: the pairing; ``standings.py``: the scoring (Swiss and duplicate), pure.

A round table's result comes from the end of its match (app/db/tournaments.py, a
subscriber of app/db/storage.py's ``MATCH_END``).
"""
