"""Text utilities every layer shares: a text's language, and (see the modules) how text is cut."""
