//! The svelte-sfc adapter (being written).
