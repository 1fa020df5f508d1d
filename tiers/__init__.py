"""memoryd.tiers: the memory model (hot, warm, cold policy, tree, distillation, retrieval)."""
