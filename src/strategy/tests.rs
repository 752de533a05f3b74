//! Unit tests of the strategies on small hand-made transcripts.
