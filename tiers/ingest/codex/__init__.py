"""Codex: its session rollouts, read as conversations."""
