"""memoryd.sync: everything that crosses the device boundary (libSQL, crypto, push/pull, restore).

Layers, each importing only the ones below it (and memoryd.tiers):

    restore.py  status.py         an agent restored on a new device; sync status for `memoryd status`
    critical.py                   push/pull of the sealed critical state (hot, warm, tree): CAS, merge
    cloudlog*.py  outbox.py       the sealed log of archived memories and forgets; a failed push's retry
    session.py                    one sync of one agent: its memory, local index, files, key, database
    device_files.py merge/ crypto/  the device's sync files; the pure merge (HLC, replicas); sealing, keys
    remote/                       the database client, file: or a server (remote/libsql.py alone imports libsql_client)

llm.py stands apart: the HTTP client of an LLM endpoint (memoryd.tiers.base.ports.LLM).
Importing this package must stay cheap: libsql_client is imported only inside the modules that talk to the database.
"""
