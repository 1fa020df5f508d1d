"""memoryd.sync.merge: the pure merge of critical state across devices (HLC stamps, replicas)."""
