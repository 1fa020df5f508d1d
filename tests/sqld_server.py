"""pytest plugin: a real libSQL server (sqld) on loopback. Filled in by the cold-archive work."""
