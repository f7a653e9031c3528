//! The vue-sfc adapter (being written).
