//! The html-static adapter (being written).
