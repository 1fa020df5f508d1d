"""memoryd.tiers.memory: the memory model — one agent's hot, warm and tree state, limits, consolidation, forget, export/import."""
