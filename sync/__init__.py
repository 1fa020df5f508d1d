"""memoryd.sync: everything that crosses the device boundary (libSQL, crypto, push/pull, restore).

Importing this package must stay cheap: libsql_client is imported only inside the modules that talk to the database.
"""
