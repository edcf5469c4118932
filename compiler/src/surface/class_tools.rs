//! Per-class tools (docs/tools.md, Per-class tools): one family per class, named by
//! [`crate::naming`], described from the shape, typed from its constraints.

use serde_json::{Map, Value, json};

use super::static_tools::{fragments, static_tools};
use super::value_schema::{
    example_value, parameter_description, property_schema, property_value_schema, setter_value_schema, summary,
};
use super::{SurfaceOptions, ToolAnnotations, ToolSpec};
use crate::model::{Class, Property};
use crate::{describe, naming};

/// What a per-class tool does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClassToolKind<'a> {
    Create,
    Query,
    List,
    Get,
    Delete,
    Set(&'a Property),
    GetCollection(&'a Property),
    Add(&'a Property),
    Remove(&'a Property),
}

impl ClassToolKind<'_> {
    /// The property the tool is about, for per-property tools.
    pub fn property(&self) -> Option<&Property> {
        match self {
            ClassToolKind::Set(p)
            | ClassToolKind::GetCollection(p)
            | ClassToolKind::Add(p)
            | ClassToolKind::Remove(p) => Some(p),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClassTool<'a> {
    pub name: String,
    pub kind: ClassToolKind<'a>,
}

/// The names and kinds of a class's tools, in the order of docs/data-model.md (Determinism):
/// create, query, list, get, delete, set_* by property order, then get_/add_/remove_* by
/// property order.
pub fn plan(class: &Class) -> Vec<ClassTool<'_>> {
    let tool = |name: String, kind| ClassTool { name, kind };
    let mut tools = vec![
        tool(naming::class_tool(&class.name, "create"), ClassToolKind::Create),
        tool(naming::class_tool(&class.name, "query"), ClassToolKind::Query),
        tool(naming::class_tool(&class.name, "list"), ClassToolKind::List),
        tool(naming::class_tool(&class.name, "get"), ClassToolKind::Get),
        tool(naming::class_tool(&class.name, "delete"), ClassToolKind::Delete),
    ];
    let visible: Vec<&Property> = class.visible_properties().collect();
    for p in visible.iter().filter(|p| !p.collection && p.is_writable()) {
        tools.push(tool(
            naming::property_tool(&class.name, "set", &p.name),
            ClassToolKind::Set(p),
        ));
    }
    for p in visible.iter().filter(|p| p.collection) {
        tools.push(tool(
            naming::property_tool(&class.name, "get", &p.name),
            ClassToolKind::GetCollection(p),
        ));
        if p.is_writable() {
            tools.push(tool(
                naming::property_tool(&class.name, "add", &p.name),
                ClassToolKind::Add(p),
            ));
            tools.push(tool(
                naming::property_tool(&class.name, "remove", &p.name),
                ClassToolKind::Remove(p),
            ));
        }
    }
    tools
}

/// The per-class tools of one class.
pub fn class_tools(class: &Class) -> Vec<ToolSpec> {
    let generic = static_tools(SurfaceOptions::default());
    let output_of = |name: &str| {
        generic
            .iter()
            .find(|t| t.name == name)
            .map_or_else(|| json!({"type": "object"}), |t| t.output_schema.clone())
    };
    plan(class)
        .into_iter()
        .map(|tool| {
            let b = Builder { class };
            let (title, description, input, output, annotations) = match tool.kind {
                ClassToolKind::Create => (
                    format!("Create {}", class.name),
                    b.create_description(&tool.name),
                    b.create_input(),
                    output_of("instance_create"),
                    ToolAnnotations::WRITE,
                ),
                ClassToolKind::Query => (
                    format!("Query {}", class.name),
                    b.query_description(&tool.name),
                    b.input(&[filter_param(), limit_param(), offset_param(), order_param()]),
                    output_of("instance_query"),
                    ToolAnnotations::READ,
                ),
                ClassToolKind::List => (
                    format!("List {}", class.name),
                    b.list_description(&tool.name),
                    b.input(&[
                        parent_param("Only instances that are children of this IRI."),
                        limit_param(),
                        offset_param(),
                        order_param(),
                    ]),
                    output_of("instance_query"),
                    ToolAnnotations::READ,
                ),
                ClassToolKind::Get => (
                    format!("Get {}", class.name),
                    b.get_description(&tool.name),
                    b.input(&[address_param()]),
                    output_of("instance_get"),
                    ToolAnnotations::READ,
                ),
                ClassToolKind::Delete => (
                    format!("Delete {}", class.name),
                    b.delete_description(&tool.name),
                    b.input(&[address_param()]),
                    output_of("instance_remove"),
                    ToolAnnotations::DELETE,
                ),
                ClassToolKind::Set(p) => (
                    format!("Set {}.{}", class.name, p.name),
                    b.set_description(&tool.name, p),
                    b.input(&[address_param(), ("value".to_string(), setter_value_schema(p))]),
                    output_of("instance_update"),
                    ToolAnnotations::OVERWRITE,
                ),
                ClassToolKind::GetCollection(p) => (
                    format!("Get {}.{}", class.name, p.name),
                    b.get_collection_description(&tool.name, p),
                    b.input(&[address_param()]),
                    collection_output(p),
                    ToolAnnotations::READ,
                ),
                ClassToolKind::Add(p) => (
                    format!("Add to {}.{}", class.name, p.name),
                    b.add_description(&tool.name, p),
                    b.input(&[
                        address_param(),
                        ("value".to_string(), item_schema(p, "The item to add.")),
                    ]),
                    output_of("instance_add_to_collection"),
                    ToolAnnotations {
                        idempotent: true,
                        ..ToolAnnotations::WRITE
                    },
                ),
                ClassToolKind::Remove(p) => (
                    format!("Remove from {}.{}", class.name, p.name),
                    b.remove_description(&tool.name, p),
                    b.input(&[
                        address_param(),
                        ("value".to_string(), item_schema(p, "The item to remove.")),
                    ]),
                    output_of("instance_remove_from_collection"),
                    ToolAnnotations::DELETE,
                ),
            };
            ToolSpec {
                name: tool.name,
                title,
                description,
                input_schema: input,
                output_schema: output,
                annotations,
            }
        })
        .collect()
}

type Param = (String, Value);

fn param(name: &str, schema: Value) -> Param {
    (name.to_string(), schema)
}

fn address_param() -> Param {
    param(
        "expression_address",
        fragments::string("The instance's IRI (its base_uri, e.g. ad4m://obj/…)."),
    )
}

fn parent_param(description: &str) -> Param {
    param("parent", fragments::string(description))
}

fn filter_param() -> Param {
    param("filter", fragments::filter())
}

fn limit_param() -> Param {
    param("limit", fragments::limit(fragments::MAX_QUERY_LIMIT))
}

fn offset_param() -> Param {
    param("offset", fragments::offset())
}

fn order_param() -> Param {
    param("order", fragments::order())
}

fn item_schema(p: &Property, what: &str) -> Value {
    let mut schema = property_value_schema(p);
    schema["description"] = format!("{what} {}", parameter_description(p)).into();
    schema
}

fn collection_output(p: &Property) -> Value {
    json!({
        "type": "object",
        "properties": {
            "expression_address": {"type": "string"},
            "collection": {"type": "string"},
            "items": {"type": "array", "items": property_value_schema(p)},
        },
        "required": ["expression_address", "collection", "items"],
        "additionalProperties": false,
    })
}

/// Builds one class's schemas and descriptions.
struct Builder<'a> {
    class: &'a Class,
}

impl Builder<'_> {
    /// An input schema: perspective_id, then `params`; only perspective_id is required
    /// (docs/tools.md: the rest is checked by the engine and reported in the envelope).
    fn input(&self, params: &[Param]) -> Value {
        let mut properties = Map::new();
        properties.insert("perspective_id".into(), fragments::perspective_id());
        for (name, schema) in params {
            properties.insert(name.clone(), schema.clone());
        }
        json!({"type": "object", "properties": properties, "required": ["perspective_id"], "additionalProperties": false})
    }

    fn creatable(&self) -> impl Iterator<Item = &Property> {
        self.class.visible_properties().filter(|p| {
            if p.collection {
                p.is_writable()
            } else {
                p.is_creatable()
            }
        })
    }

    fn create_input(&self) -> Value {
        let mut params = vec![
            (
                "expression_address".to_string(),
                json!({"type": "string", "description": "The new instance's IRI; a fresh ad4m://obj/… IRI is minted when omitted."}),
            ),
            parent_param("An IRI to link the new instance under (parent —ad4m://has_child→ instance)."),
        ];
        params.extend(self.creatable().map(|p| (p.name.clone(), property_schema(p))));
        self.input(&params)
    }

    /// The class line every description starts with.
    fn about(&self, verb: &str) -> String {
        let hint = self
            .class
            .interpretation_hint
            .as_deref()
            .map(|h| format!(" {h}"))
            .unwrap_or_default();
        format!("{verb} a {}.{hint}", self.class.name)
    }

    fn equivalent(&self, generic: &str) -> String {
        format!("Same as {generic} with class_name \"{}\".", self.class.name)
    }

    fn create_description(&self, tool: &str) -> String {
        let mut text = self.about("Create");
        text.push_str("\n\nProperties (* required):");
        for p in self.creatable() {
            let star = if p.required { "*" } else { "" };
            let hint = p
                .interpretation_hint
                .as_deref()
                .map(|h| format!(" {h}"))
                .unwrap_or_default();
            text.push_str(&format!("\n- {}{star} ({}){hint}", p.name, summary(p)));
        }
        let rules = describe::rule_lines(self.class, None);
        if !rules.is_empty() {
            text.push_str("\n\nAlso checked at write (SHACL Core; a write that breaks one is refused, naming it):");
            for rule in rules {
                text.push_str(&format!("\n- {rule}"));
            }
        }
        let mut args = Map::new();
        args.insert("perspective_id".into(), "<P>".into());
        let mut set = Vec::new();
        for p in self.creatable().filter(|p| p.required) {
            let v = example_value(p);
            args.insert(p.name.clone(), if p.collection { json!([v]) } else { v });
            set.push(p.name.clone());
        }
        let result =
            json!({"created": true, "class_name": self.class.name, "base_uri": "ad4m://obj/…", "properties_set": set});
        text.push_str(&format!(
            "\n\n{} All values are checked against the shape; every problem comes back at once in a validation envelope (isError).\nExample: {tool}({}) → {}",
            self.equivalent("instance_create"),
            Value::Object(args),
            result
        ));
        text
    }

    fn query_description(&self, tool: &str) -> String {
        let example_filter = self
            .class
            .visible_properties()
            .find(|p| !p.collection)
            .map(|p| json!({ p.name.clone(): example_value(p) }))
            .unwrap_or_else(|| json!({}));
        format!(
            "{} Filter by property values; returns a page of instance objects with count (page size) and total_count (all matches). Use {} when you know the IRI. {}\nExample: {tool}({}) → {}",
            self.about("Find instances of"),
            naming::class_tool(&self.class.name, "get"),
            self.equivalent("instance_query"),
            json!({"perspective_id": "<P>", "filter": example_filter}),
            json!({"class_name": self.class.name, "count": 1, "total_count": 1, "instances": [{"id": "ad4m://obj/…", "baseExpression": "ad4m://obj/…"}]}),
        )
    }

    fn list_description(&self, tool: &str) -> String {
        format!(
            "{} Every instance, or those under `parent`, a page at a time. {}\nExample: {tool}({}) → {}",
            self.about("List instances of"),
            self.equivalent("instance_query"),
            json!({"perspective_id": "<P>", "limit": 10}),
            json!({"class_name": self.class.name, "count": 0, "total_count": 0, "instances": []}),
        )
    }

    fn get_description(&self, tool: &str) -> String {
        format!(
            "{} Returns the instance object: id, baseExpression, its properties, createdAt, updatedAt, author, timestamp. {}\nExample: {tool}({}) → {}",
            self.about("Get one instance of"),
            self.equivalent("instance_get"),
            json!({"perspective_id": "<P>", "expression_address": "ad4m://obj/…"}),
            json!({"id": "ad4m://obj/…", "baseExpression": "ad4m://obj/…"}),
        )
    }

    fn delete_description(&self, tool: &str) -> String {
        format!(
            "{} Runs the class's destructor, then removes every link in or out of the instance. {}\nExample: {tool}({}) → {}",
            self.about("Delete an instance of")
                .replacen("Delete an instance of a ", "Delete an instance of ", 1),
            self.equivalent("instance_remove"),
            json!({"perspective_id": "<P>", "expression_address": "ad4m://obj/…"}),
            json!({"success": true, "class_name": self.class.name, "deleted": "ad4m://obj/…", "links_removed": 3}),
        )
    }

    /// ` Also checked at write: …` for the engine's rules about `p`, or nothing.
    fn rules_about(&self, p: &Property) -> String {
        let rules = describe::rule_lines(self.class, Some(&p.name));
        if rules.is_empty() {
            String::new()
        } else {
            format!(" Also checked at write: {}.", rules.join("; "))
        }
    }

    fn set_description(&self, tool: &str, p: &Property) -> String {
        let (name, class) = (&p.name, &self.class.name);
        let clear = if p.is_optional_scalar() {
            " Pass null to clear it."
        } else {
            ""
        };
        let clear = format!("{clear}{}", self.rules_about(p));
        format!(
            "Set `{name}` of a {class} ({}).{clear} Same as instance_update with class_name \"{class}\" and \
             properties {{\"{name}\": …}}.\nExample: {tool}({}) → {}",
            summary(p),
            json!({"perspective_id": "<P>", "expression_address": "ad4m://obj/…", "value": example_value(p)}),
            json!({"success": true, "class_name": class, "base_uri": "ad4m://obj/…", "updated_properties": [name]}),
        )
    }

    fn get_collection_description(&self, tool: &str, p: &Property) -> String {
        format!(
            "Get the items of `{}` of a {} ({}), oldest first.\nExample: {tool}({}) → {}",
            p.name,
            self.class.name,
            summary(p),
            json!({"perspective_id": "<P>", "expression_address": "ad4m://obj/…"}),
            json!({"expression_address": "ad4m://obj/…", "collection": p.name, "items": [example_value(p)]}),
        )
    }

    fn add_description(&self, tool: &str, p: &Property) -> String {
        let (name, class) = (&p.name, &self.class.name);
        format!(
            "Add one item to `{name}` of a {class} ({}).{} Adding an item that is already there changes nothing \
             (already_member: true). Same as instance_add_to_collection with class_name \"{class}\" and \
             collection \"{name}\".\nExample: {tool}({}) → {}",
            summary(p),
            self.rules_about(p),
            json!({"perspective_id": "<P>", "expression_address": "ad4m://obj/…", "value": example_value(p)}),
            json!({"success": true, "class_name": class, "base_uri": "ad4m://obj/…", "collection": name, "links_added": 1}),
        )
    }

    fn remove_description(&self, tool: &str, p: &Property) -> String {
        let (name, class) = (&p.name, &self.class.name);
        format!(
            "Remove one item from `{name}` of a {class}. Same as instance_remove_from_collection with class_name \
             \"{class}\" and collection \"{name}\".\nExample: {tool}({}) → {}",
            json!({"perspective_id": "<P>", "expression_address": "ad4m://obj/…", "value": example_value(p)}),
            json!({"success": true, "class_name": class, "base_uri": "ad4m://obj/…", "collection": name, "links_removed": 1}),
        )
    }
}
