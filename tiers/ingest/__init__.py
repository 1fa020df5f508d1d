"""memoryd.tiers.ingest: memories in from outside — daily notes, conversations and their transcripts."""
