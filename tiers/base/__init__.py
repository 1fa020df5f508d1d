"""memoryd.tiers.base: what every part stands on (errors, config, atomic files, paths, progress, backoff, the ports sync implements)."""
