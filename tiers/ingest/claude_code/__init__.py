"""Claude Code: its session transcripts and its own memory files, read as conversations and notes."""
