//! The OpenAPI 3.1 description of the daemon, generated from the registry
//! (`GET /openapi.json`, and `docs/openapi.json`, checked fresh by a test).

use serde_json::{Map, Value, json};

use super::envelope::{Request, Response};
use super::registry;

/// Moves a schema's `$defs` into `defs` and points its refs there.
fn hoist(mut schema: Value, defs: &mut Map<String, Value>) -> Value {
    if let Some(Value::Object(local)) = schema.as_object_mut().and_then(|o| o.remove("$defs")) {
        for (name, def) in local {
            let def = hoist(def, defs);
            defs.entry(name).or_insert(def);
        }
    }
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
    }
    rewrite_refs(&mut schema);
    schema
}

fn rewrite_refs(v: &mut Value) {
    match v {
        Value::Object(obj) => {
            if let Some(Value::String(r)) = obj.get_mut("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
            {
                *r = format!("#/components/schemas/{name}");
            }
            obj.values_mut().for_each(rewrite_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

fn pascal(api_name: &str) -> String {
    api_name
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

pub fn document() -> Value {
    let mut schemas = Map::new();
    let mut args_refs = Vec::new();
    let mut names = Vec::new();
    for e in registry() {
        let base = pascal(e.api_name());
        let args = hoist(
            serde_json::to_value(e.args_schema()).unwrap_or_default(),
            &mut schemas,
        );
        let out = hoist(
            serde_json::to_value(e.output_schema()).unwrap_or_default(),
            &mut schemas,
        );
        let mut args = args;
        if let Some(obj) = args.as_object_mut() {
            obj.insert("title".into(), json!(format!("{base}Args")));
            obj.insert(
                "description".into(),
                json!(format!("`{}`: {}", e.api_name(), e.about())),
            );
        }
        schemas.insert(format!("{base}Args"), args);
        schemas.insert(format!("{base}Result"), out);
        args_refs.push(json!({ "$ref": format!("#/components/schemas/{base}Args") }));
        names.push(json!(e.api_name()));
    }
    let mut request = hoist(
        serde_json::to_value(schemars::schema_for!(Request)).unwrap_or_default(),
        &mut schemas,
    );
    request["properties"]["command"]["enum"] = Value::Array(names);
    request["properties"]["args"] = json!({ "oneOf": args_refs, "description": "the command's arguments (see each *Args schema)" });
    schemas.insert("Request".into(), request);
    let response = hoist(
        serde_json::to_value(schemars::schema_for!(Response)).unwrap_or_default(),
        &mut schemas,
    );
    schemas.insert("Response".into(), response);

    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "webrig daemon",
            "version": crate::VERSION,
            "description": "Every command of the registry through one endpoint, POST /command. Generated from host/src/commands.rs.",
        },
        "servers": [{ "url": "http://127.0.0.1:9377" }],
        "components": {
            "schemas": schemas,
            "securitySchemes": { "token": { "type": "http", "scheme": "bearer" } },
        },
        "paths": {
            "/ping": { "get": {
                "summary": "Version, without a token",
                "responses": { "200": { "description": "the daemon runs" } },
            }},
            "/pair": { "post": {
                "summary": "Redeem a pairing code for the token (extension origin only)",
                "requestBody": { "required": true, "content": { "application/json": { "schema": {
                    "type": "object", "required": ["code"], "properties": { "code": { "type": "string" } },
                }}}},
                "responses": {
                    "200": { "description": "{token}" },
                    "401": { "description": "no, expired or wrong code" },
                    "403": { "description": "not an extension origin" },
                    "429": { "description": "rate limited; see Retry-After" },
                },
            }},
            "/command": { "post": {
                "summary": "Run a command",
                "security": [{ "token": [] }],
                "requestBody": { "required": true, "content": { "application/json": {
                    "schema": { "$ref": "#/components/schemas/Request" },
                }}},
                "responses": {
                    "default": {
                        "description": "the envelope: ok with result, or an error with a closed-set code (HTTP status per code, see docs/SURFACE.md)",
                        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Response" } } },
                    },
                },
            }},
            "/openapi.json": { "get": {
                "summary": "This document",
                "security": [{ "token": [] }],
                "responses": { "200": { "description": "OpenAPI 3.1" } },
            }},
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_doc_is_fresh() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/openapi.json");
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        let generated = serde_json::to_string_pretty(&document()).unwrap_or_default() + "\n";
        assert!(
            committed == generated,
            "docs/openapi.json is stale: run `cargo xtask docs` and commit it"
        );
    }

    #[test]
    fn every_ref_points_at_a_component() {
        let doc = document();
        let text = doc.to_string();
        let schemas = doc["components"]["schemas"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for piece in text.split("\"$ref\":\"").skip(1) {
            let target = piece.split('"').next().unwrap_or_default();
            let name = target
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("odd ref {target}"));
            assert!(schemas.contains_key(name), "dangling ref {target}");
        }
    }
}
