//! Unit tests of the extractive summarizer.
