"""The table server: REST and WebSocket front (``api``) over table actors (``tables``).

``python -m app`` serves it; ``create_app()`` builds the ASGI application for tests.
"""
