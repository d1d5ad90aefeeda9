"""One module per resource: guests, tables (REST), ws (the table socket)."""
