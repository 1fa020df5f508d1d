"""memoryd.tiers.ingest.openclaw: an OpenClaw install read where it keeps conversations and notes."""
