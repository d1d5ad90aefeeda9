"""Persistence: match logs, results and history in SQLite or PostgreSQL (SQLAlchemy async)."""
