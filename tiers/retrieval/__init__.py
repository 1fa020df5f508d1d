"""memoryd.tiers.retrieval: finding memories — analysis, BM25 ranking across tiers, filters, dates, hybrid vectors, LLM re-rank."""
