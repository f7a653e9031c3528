//! (issue 27: filled in by its owner)
