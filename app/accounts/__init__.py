"""Accounts (docs/accounts.md): a username and a password instead of a guest's name,
the same player id for life, sessions that end when asked to.

- :mod:`.usernames`, :mod:`.passwords`: what may be chosen, and Argon2id off the loop;
- :mod:`.sessions`: opaque tokens kept as hashes, sliding expiry, a Redis cache;
- the attempts' limits: :mod:`app.limiter`, counted in memory or in Redis;
- :mod:`.sockets`, :mod:`.news`: an ended session's sockets closed on every node;
- :mod:`.service`: who a token is, and the calls the routes make.

Nothing is imported here: app.models takes the field checks of the first two, and the
service needs app.models itself (through app.tables).
"""
