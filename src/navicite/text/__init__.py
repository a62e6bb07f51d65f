"""Text utilities every layer shares, one of each: tokens, sentences, language, passages, segments."""
