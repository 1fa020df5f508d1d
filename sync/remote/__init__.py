"""memoryd.sync.remote: the database — URL, connection (file: or a libSQL server), server schema."""
