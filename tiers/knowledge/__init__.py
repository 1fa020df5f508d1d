"""memoryd.tiers.knowledge: memory that becomes knowledge — kinds and confidence, one current truth, entities and hotness, pages, sealing, the daily digest, the tree's restructure."""
