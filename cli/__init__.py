"""memoryd.cli: thin click commands over tiers/sync, or over the daemon's socket."""
