"""The web layer: thin FastAPI routers over :mod:`app.tables`."""
