//! Tool arguments through validation: the first byte picks the tool, the rest is a JSON object
//! handed as the arguments of instance_create / instance_update / instance_query (through the
//! handler: schema checks, then the engine), or straight to the engine as an instance_query
//! filter. Missing `perspective_id` / `base_uri` are filled in with real ones so the fuzzer
//! reaches the engine. Nothing may panic and every answer serializes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use shacl_mcp::engine::QueryArgs;
use shacl_mcp::mcp::auth::Caller;
use shacl_mcp_fuzz::{CLASSES, WORLD};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(Value::Object(mut args)) = serde_json::from_slice::<Value>(rest) else { return };
    let world = &*WORLD;
    let class = args
        .get("class_name")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| CLASSES[selector as usize / 4 % CLASSES.len()].to_string());

    if selector % 4 == 3 {
        // The filter compiler on its own, without the schema in front of it.
        let query = QueryArgs {
            filter: Some(args),
            ..QueryArgs::default()
        };
        if let Err(e) = world.engine.instance_query(&world.perspective, &class, &query) {
            let _ = e.to_json();
            let _ = e.to_string();
        }
        return;
    }

    let tool = ["instance_create", "instance_update", "instance_query"][selector as usize % 4];
    args.entry("perspective_id").or_insert_with(|| Value::from(world.perspective.clone()));
    args.entry("class_name").or_insert_with(|| Value::from(class.clone()));
    if tool == "instance_update" && !args.contains_key("base_uri") {
        let id = world
            .instances
            .iter()
            .find(|(c, _)| *c == class)
            .or(world.instances.first())
            .map(|(_, id)| id.clone())
            .unwrap_or_default();
        args.insert("base_uri".into(), Value::from(id));
    }
    let args: Map<String, Value> = args;
    let result = world
        .runtime
        .block_on(world.server.call(tool, Some(args), Caller::Stdio));
    match result {
        Ok(r) => drop(serde_json::to_value(&r).expect("result serializes")),
        Err(e) => drop(serde_json::to_value(&e).expect("error serializes")),
    }
});
