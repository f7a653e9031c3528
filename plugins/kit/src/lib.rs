//! Pure helpers shared by webrig's guest plugins: an HTML parser with
//! metadata readers, date parsing to RFC 3339, URL helpers. It holds no WIT
//! bindings, so provider and workflow components can both link it without
//! taking on each other's world.

pub mod date;
pub mod html;
pub mod url;

pub use serde_json;
