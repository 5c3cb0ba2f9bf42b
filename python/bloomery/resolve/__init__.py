"""Resolve: from checked spec documents to the IR the emitter and `bloomery plan` read (the
compiler's later half is still in compiler.py; what has moved lives here)."""
