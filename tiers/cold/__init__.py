"""memoryd.tiers.cold: the cold tier's store on this device — the local SQLite index every retrieve reads (no network)."""
