"""memoryd.tiers.distillation: reading a fact — rules, redaction, importance, the distiller and its LLM prompts."""
