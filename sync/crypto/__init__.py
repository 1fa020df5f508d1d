"""memoryd.sync.crypto: sealing (AES-256-GCM envelopes) and the per-agent keys."""
